#ifndef MEDIATOOLS_CFFMPEG_FILTER_H
#define MEDIATOOLS_CFFMPEG_FILTER_H

/* libavfilter, loaded at run time.
 *
 * Linking libavfilter makes every process start load it and the ~30 libraries it depends on
 * (rubberband, flite, lapack, vulkan, ...): ~11 ms per start, measured, which the probe tool
 * cannot afford. Its headers are included here for the types only, nothing in this module links
 * it, and `mt_avfilter_load` opens it with dlopen and fills a table of function pointers whose
 * types the compiler takes from the prototypes (`__typeof__`), so a wrong signature cannot
 * compile. The library is never closed: the table stays valid for the life of the process. */

#include "shim.h"
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <dlfcn.h>
#include <stdio.h>

/* The soname the headers describe ("libavfilter.so.8" for FFmpeg 5.1). */
#define MT_AVFILTER_SONAME "libavfilter.so." AV_STRINGIFY(LIBAVFILTER_VERSION_MAJOR)

/* The libavfilter functions the AV module calls. */
struct mt_avfilter {
    __typeof__(&avfilter_version) version;
    __typeof__(&avfilter_get_by_name) get_by_name;
    __typeof__(&avfilter_graph_alloc) graph_alloc;
    __typeof__(&avfilter_graph_free) graph_free;
    __typeof__(&avfilter_graph_alloc_filter) graph_alloc_filter;
    __typeof__(&avfilter_init_str) init_str;
    __typeof__(&avfilter_inout_alloc) inout_alloc;
    __typeof__(&avfilter_inout_free) inout_free;
    __typeof__(&avfilter_graph_parse_ptr) graph_parse_ptr;
    __typeof__(&avfilter_graph_config) graph_config;
    __typeof__(&avfilter_graph_dump) graph_dump;
    __typeof__(&av_buffersrc_parameters_alloc) buffersrc_parameters_alloc;
    __typeof__(&av_buffersrc_parameters_set) buffersrc_parameters_set;
    __typeof__(&av_buffersrc_add_frame_flags) buffersrc_add_frame_flags;
    __typeof__(&av_buffersrc_close) buffersrc_close;
    __typeof__(&av_buffersrc_get_nb_failed_requests) buffersrc_get_nb_failed_requests;
    __typeof__(&av_buffersink_get_frame_flags) buffersink_get_frame_flags;
    __typeof__(&av_buffersink_set_frame_size) buffersink_set_frame_size;
    __typeof__(&av_buffersink_get_type) buffersink_get_type;
    __typeof__(&av_buffersink_get_time_base) buffersink_get_time_base;
    __typeof__(&av_buffersink_get_format) buffersink_get_format;
    __typeof__(&av_buffersink_get_frame_rate) buffersink_get_frame_rate;
    __typeof__(&av_buffersink_get_w) buffersink_get_w;
    __typeof__(&av_buffersink_get_h) buffersink_get_h;
    __typeof__(&av_buffersink_get_sample_aspect_ratio) buffersink_get_sample_aspect_ratio;
    __typeof__(&av_buffersink_get_sample_rate) buffersink_get_sample_rate;
    __typeof__(&av_buffersink_get_ch_layout) buffersink_get_ch_layout;
};

/* Opens libavfilter (once per process is enough: later calls find it loaded) and fills `api`.
 * Returns 0, or -1 with the reason in `error` (dlerror's text, or a version mismatch). */
static inline int mt_avfilter_load(struct mt_avfilter *api, char *error, size_t size) {
    void *library = dlopen(MT_AVFILTER_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(error, size, "%s", dlerror());
        return -1;
    }
#define MT_AVFILTER_SYMBOL(field, name)                                                       \
    do {                                                                                      \
        api->field = (__typeof__(api->field))dlsym(library, #name);                           \
        if (!api->field) {                                                                    \
            snprintf(error, size, "%s: no symbol %s", MT_AVFILTER_SONAME, #name);             \
            return -1;                                                                        \
        }                                                                                     \
    } while (0)
    MT_AVFILTER_SYMBOL(version, avfilter_version);
    MT_AVFILTER_SYMBOL(get_by_name, avfilter_get_by_name);
    MT_AVFILTER_SYMBOL(graph_alloc, avfilter_graph_alloc);
    MT_AVFILTER_SYMBOL(graph_free, avfilter_graph_free);
    MT_AVFILTER_SYMBOL(graph_alloc_filter, avfilter_graph_alloc_filter);
    MT_AVFILTER_SYMBOL(init_str, avfilter_init_str);
    MT_AVFILTER_SYMBOL(inout_alloc, avfilter_inout_alloc);
    MT_AVFILTER_SYMBOL(inout_free, avfilter_inout_free);
    MT_AVFILTER_SYMBOL(graph_parse_ptr, avfilter_graph_parse_ptr);
    MT_AVFILTER_SYMBOL(graph_config, avfilter_graph_config);
    MT_AVFILTER_SYMBOL(graph_dump, avfilter_graph_dump);
    MT_AVFILTER_SYMBOL(buffersrc_parameters_alloc, av_buffersrc_parameters_alloc);
    MT_AVFILTER_SYMBOL(buffersrc_parameters_set, av_buffersrc_parameters_set);
    MT_AVFILTER_SYMBOL(buffersrc_add_frame_flags, av_buffersrc_add_frame_flags);
    MT_AVFILTER_SYMBOL(buffersrc_close, av_buffersrc_close);
    MT_AVFILTER_SYMBOL(buffersrc_get_nb_failed_requests, av_buffersrc_get_nb_failed_requests);
    MT_AVFILTER_SYMBOL(buffersink_get_frame_flags, av_buffersink_get_frame_flags);
    MT_AVFILTER_SYMBOL(buffersink_set_frame_size, av_buffersink_set_frame_size);
    MT_AVFILTER_SYMBOL(buffersink_get_type, av_buffersink_get_type);
    MT_AVFILTER_SYMBOL(buffersink_get_time_base, av_buffersink_get_time_base);
    MT_AVFILTER_SYMBOL(buffersink_get_format, av_buffersink_get_format);
    MT_AVFILTER_SYMBOL(buffersink_get_frame_rate, av_buffersink_get_frame_rate);
    MT_AVFILTER_SYMBOL(buffersink_get_w, av_buffersink_get_w);
    MT_AVFILTER_SYMBOL(buffersink_get_h, av_buffersink_get_h);
    MT_AVFILTER_SYMBOL(buffersink_get_sample_aspect_ratio, av_buffersink_get_sample_aspect_ratio);
    MT_AVFILTER_SYMBOL(buffersink_get_sample_rate, av_buffersink_get_sample_rate);
    MT_AVFILTER_SYMBOL(buffersink_get_ch_layout, av_buffersink_get_ch_layout);
#undef MT_AVFILTER_SYMBOL
    /* The same major version as the headers: the structures' layouts are the ones compiled. */
    if (AV_VERSION_MAJOR(api->version()) != LIBAVFILTER_VERSION_MAJOR) {
        snprintf(error, size, "%s is version %u, the headers %d", MT_AVFILTER_SONAME,
                 AV_VERSION_MAJOR(api->version()), LIBAVFILTER_VERSION_MAJOR);
        return -1;
    }
    return 0;
}

/* buffersrc.h's flags and buffersink.h's, as constants. */
static const int mt_buffersrc_flag_push = AV_BUFFERSRC_FLAG_PUSH;
static const int mt_buffersrc_flag_keep_ref = AV_BUFFERSRC_FLAG_KEEP_REF;

#endif
