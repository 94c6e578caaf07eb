#ifndef MEDIATOOLS_CFFMPEG_SCALE_H
#define MEDIATOOLS_CFFMPEG_SCALE_H

#include "shim.h"
#include <libswscale/swscale.h>

#endif
