#ifndef MEDIATOOLS_CFFMPEG_SHIM_H
#define MEDIATOOLS_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/dovi_meta.h>
#include <libavutil/pixdesc.h>
#include <libavutil/opt.h>
#include <libavutil/md5.h>
#include <libavutil/imgutils.h>
#include <libavutil/crc.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/mathematics.h>
#include <libavutil/samplefmt.h>

/* FFmpeg macros that Swift cannot import, as functions and constants with one prefix. */

static inline int mt_averror(int e) { return AVERROR(e); }
static const int mt_averror_eof = AVERROR_EOF;
static const int mt_averror_invaliddata = AVERROR_INVALIDDATA;
static const int mt_averror_eagain = AVERROR(EAGAIN);
static const int mt_averror_exit = AVERROR_EXIT;
static const int mt_averror_http_not_found = AVERROR_HTTP_NOT_FOUND;
static const int mt_averror_http_forbidden = AVERROR_HTTP_FORBIDDEN;
static const int mt_averror_http_unauthorized = AVERROR_HTTP_UNAUTHORIZED;
static const int mt_averror_encoder_not_found = AVERROR_ENCODER_NOT_FOUND;
static const int mt_averror_decoder_not_found = AVERROR_DECODER_NOT_FOUND;
static const int mt_averror_muxer_not_found = AVERROR_MUXER_NOT_FOUND;
static const int mt_averror_filter_not_found = AVERROR_FILTER_NOT_FOUND;
static const int mt_averror_option_not_found = AVERROR_OPTION_NOT_FOUND;
static const int64_t mt_nopts_value = AV_NOPTS_VALUE;
static const int mt_time_base = AV_TIME_BASE;

/* glibc's heap: keep freed memory for the next input instead of trimming it after each one,
 * and serve blocks up to mmap_threshold from the heap rather than from fresh mappings. */
#ifdef __GLIBC__
#include <malloc.h>
static inline void mt_keep_freed_memory(int trim_threshold, int top_pad, int mmap_threshold) {
    mallopt(M_TRIM_THRESHOLD, trim_threshold);
    mallopt(M_TOP_PAD, top_pad);
    mallopt(M_MMAP_THRESHOLD, mmap_threshold);
}
/* Every thread allocates from the main heap (brk), which only the trim threshold shrinks:
 * a thread's own arena unmaps its 64 MiB heaps as they empty. */
static inline void mt_one_arena(void) { mallopt(M_ARENA_MAX, 1); }
#else
static inline void mt_keep_freed_memory(int trim_threshold, int top_pad, int mmap_threshold) {}
static inline void mt_one_arena(void) {}
#endif

/* av_log callbacks: Swift cannot va_copy, and a message must be both formatted for us and
 * passed on to FFmpeg's default callback (which prints it if the log level allows). */

/* Formats one message into `line` (keeping `prefix` across calls) and passes it on to the
 * default callback. */
static inline void mt_log_format_and_forward(void *avcl, int level, const char *fmt, va_list vl,
                                             char *line, int size, int *prefix) {
    va_list copy;
    va_copy(copy, vl);
    av_log_format_line2(avcl, level, fmt, copy, line, size, prefix);
    va_end(copy);
    av_log_default_callback(avcl, level, fmt, vl);
}

/* The `opaque` of the context a message comes from: a decoder's (AVCodecContext, also its frame
 * threads' copies) or a demuxer's (AVFormatContext); NULL for anything else. */
static inline void *mt_log_context_opaque(void *avcl) {
    if (!avcl) return NULL;
    const AVClass *cls = *(const AVClass **)avcl;
    if (cls == avcodec_get_class()) return ((AVCodecContext *)avcl)->opaque;
    void *opaque = NULL;
    if (cls == avcodec_get_class()) opaque = ((AVCodecContext *)avcl)->opaque;
    else if (cls == avformat_get_class()) opaque = ((AVFormatContext *)avcl)->opaque;
    return opaque;
}

#endif
