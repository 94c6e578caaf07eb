#ifndef MEDIATOOLS_CFFMPEG_RESAMPLE_H
#define MEDIATOOLS_CFFMPEG_RESAMPLE_H

#include "shim.h"
#include <libavutil/mathematics.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>

#endif
