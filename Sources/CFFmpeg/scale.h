#ifndef MEDIATOOLS_CFFMPEG_SCALE_H
#define MEDIATOOLS_CFFMPEG_SCALE_H

/* libswscale, loaded at run time.
 *
 * Linked, libswscale made every start of every tool (all link the AV module) 0.1-0.2 ms slower
 * (measured: mediaprobe's one-file time, alternating runs), though only the tools that convert
 * pictures call it. As with libavfilter (filter.h), its header is included for the types and
 * constants only, nothing links it, and `mt_swscale_load` opens it with dlopen and fills a table
 * of function pointers whose types come from the prototypes (`__typeof__`). Never closed. */

#include "shim.h"
#include <libswscale/swscale.h>
#include <dlfcn.h>
#include <stdio.h>

/* The soname the header describes ("libswscale.so.6" for FFmpeg 5.1). */
#define MT_SWSCALE_SONAME "libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR)

/* The libswscale functions the AV module calls. */
struct mt_swscale {
    __typeof__(&swscale_version) version;
    __typeof__(&sws_getContext) get_context;
    __typeof__(&sws_freeContext) free_context;
    __typeof__(&sws_getCoefficients) get_coefficients;
    __typeof__(&sws_setColorspaceDetails) set_colorspace_details;
    __typeof__(&sws_scale_frame) scale_frame;
};

/* Opens libswscale (later calls find it loaded) and fills `api`. Returns 0, or -1 with the
 * reason in `error` (dlerror's text, or a version mismatch). */
static inline int mt_swscale_load(struct mt_swscale *api, char *error, size_t size) {
    void *library = dlopen(MT_SWSCALE_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(error, size, "%s", dlerror());
        return -1;
    }
#define MT_SWSCALE_SYMBOL(field, name)                                                        \
    do {                                                                                      \
        api->field = (__typeof__(api->field))dlsym(library, #name);                           \
        if (!api->field) {                                                                    \
            snprintf(error, size, "%s: no symbol %s", MT_SWSCALE_SONAME, #name);              \
            return -1;                                                                        \
        }                                                                                     \
    } while (0)
    MT_SWSCALE_SYMBOL(version, swscale_version);
    MT_SWSCALE_SYMBOL(get_context, sws_getContext);
    MT_SWSCALE_SYMBOL(free_context, sws_freeContext);
    MT_SWSCALE_SYMBOL(get_coefficients, sws_getCoefficients);
    MT_SWSCALE_SYMBOL(set_colorspace_details, sws_setColorspaceDetails);
    MT_SWSCALE_SYMBOL(scale_frame, sws_scale_frame);
#undef MT_SWSCALE_SYMBOL
    /* The same major version as the header: the structures' layouts are the ones compiled. */
    if (AV_VERSION_MAJOR(api->version()) != LIBSWSCALE_VERSION_MAJOR) {
        snprintf(error, size, "%s is version %u, the header %d", MT_SWSCALE_SONAME,
                 AV_VERSION_MAJOR(api->version()), LIBSWSCALE_VERSION_MAJOR);
        return -1;
    }
    return 0;
}

#endif
