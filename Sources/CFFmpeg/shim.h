#ifndef MEDIATOOLS_CFFMPEG_SHIM_H
#define MEDIATOOLS_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/pixdesc.h>
#include <libavutil/opt.h>

/* FFmpeg macros that Swift cannot import, as functions and constants with one prefix. */

static inline int mt_averror(int e) { return AVERROR(e); }
static const int mt_averror_eof = AVERROR_EOF;
static const int mt_averror_invaliddata = AVERROR_INVALIDDATA;
static const int mt_averror_eagain = AVERROR(EAGAIN);
static const int mt_averror_exit = AVERROR_EXIT;
static const int64_t mt_nopts_value = AV_NOPTS_VALUE;
static const int mt_time_base = AV_TIME_BASE;

#endif
