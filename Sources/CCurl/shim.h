#ifndef MEDIATOOLS_CCURL_SHIM_H
#define MEDIATOOLS_CCURL_SHIM_H

/* libcurl, loaded at run time: the HTTP(S) client under remote inputs (AV's RemoteFile).
 *
 * Linked, libcurl and the eight libraries it adds to a tool (nghttp2, ssh2, rtmp, ldap, lber,
 * sasl2, psl, zstd) would load at every start of every tool, though only a run with
 * --allow-network and a URL uses it (a trivial program linked with -lcurl started 12 ms slower
 * than one without, measured). As with libavfilter and libswscale (CFFmpeg's filter.h and
 * scale.h), the header is included for the types and constants only, nothing links it, and
 * `mt_curl_load` opens libcurl.so.4 with dlopen and fills a table of function pointers whose
 * types come from the prototypes. Never closed.
 *
 * curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: the table keeps
 * them untyped and the `mt_curl_set_*` / `mt_curl_get_*` functions below call them with one
 * argument of a stated type. */

#define CURL_DISABLE_TYPECHECK 1
#define CURL_NO_OLDIES 1
#include <curl/curl.h>
#include <dlfcn.h>
#include <stdio.h>

#define MT_CURL_SONAME "libcurl.so.4"

/* The libcurl functions the AV module calls. */
struct mt_curl {
    __typeof__(&curl_version_info) version_info;
    __typeof__(&curl_global_init) global_init;
    __typeof__(&curl_easy_init) easy_init;
    __typeof__(&curl_easy_cleanup) easy_cleanup;
    void *easy_setopt; /* CURLcode (*)(CURL *, CURLoption, ...) */
    void *easy_getinfo; /* CURLcode (*)(CURL *, CURLINFO, ...) */
    __typeof__(&curl_easy_strerror) easy_strerror;
    __typeof__(&curl_easy_pause) easy_pause;
    __typeof__(&curl_multi_init) multi_init;
    __typeof__(&curl_multi_cleanup) multi_cleanup;
    __typeof__(&curl_multi_add_handle) multi_add_handle;
    __typeof__(&curl_multi_remove_handle) multi_remove_handle;
    __typeof__(&curl_multi_perform) multi_perform;
    __typeof__(&curl_multi_poll) multi_poll;
    __typeof__(&curl_multi_info_read) multi_info_read;
    __typeof__(&curl_slist_append) slist_append;
    __typeof__(&curl_slist_free_all) slist_free_all;
};

/* Opens libcurl (later calls find it loaded), fills `api` and initializes the library once
 * (the caller makes sure this runs once per process). Returns 0, or -1 with the reason in
 * `error` (dlerror's text, a missing symbol, a libcurl older than 7.85, which lacks
 * CURLOPT_PROTOCOLS_STR). */
static inline int mt_curl_load(struct mt_curl *api, char *error, size_t size) {
    void *library = dlopen(MT_CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(error, size, "%s", dlerror());
        return -1;
    }
#define MT_CURL_SYMBOL(field, name)                                                          \
    do {                                                                                     \
        api->field = (__typeof__(api->field))dlsym(library, #name);                          \
        if (!api->field) {                                                                   \
            snprintf(error, size, "%s: no symbol %s", MT_CURL_SONAME, #name);                \
            return -1;                                                                       \
        }                                                                                    \
    } while (0)
    MT_CURL_SYMBOL(version_info, curl_version_info);
    MT_CURL_SYMBOL(global_init, curl_global_init);
    MT_CURL_SYMBOL(easy_init, curl_easy_init);
    MT_CURL_SYMBOL(easy_cleanup, curl_easy_cleanup);
    MT_CURL_SYMBOL(easy_setopt, curl_easy_setopt);
    MT_CURL_SYMBOL(easy_getinfo, curl_easy_getinfo);
    MT_CURL_SYMBOL(easy_strerror, curl_easy_strerror);
    MT_CURL_SYMBOL(easy_pause, curl_easy_pause);
    MT_CURL_SYMBOL(multi_init, curl_multi_init);
    MT_CURL_SYMBOL(multi_cleanup, curl_multi_cleanup);
    MT_CURL_SYMBOL(multi_add_handle, curl_multi_add_handle);
    MT_CURL_SYMBOL(multi_remove_handle, curl_multi_remove_handle);
    MT_CURL_SYMBOL(multi_perform, curl_multi_perform);
    MT_CURL_SYMBOL(multi_poll, curl_multi_poll);
    MT_CURL_SYMBOL(multi_info_read, curl_multi_info_read);
    MT_CURL_SYMBOL(slist_append, curl_slist_append);
    MT_CURL_SYMBOL(slist_free_all, curl_slist_free_all);
#undef MT_CURL_SYMBOL
    const curl_version_info_data *version = api->version_info(CURLVERSION_NOW);
    if (!version || version->version_num < 0x075500) {
        snprintf(error, size, "%s is version %s; 7.85 or later is needed", MT_CURL_SONAME,
                 version ? version->version : "?");
        return -1;
    }
    CURLcode code = api->global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(error, size, "curl_global_init failed (%d)", (int)code);
        return -1;
    }
    return 0;
}

typedef CURLcode (*mt_curl_setopt_fn)(CURL *, CURLoption, ...);
typedef CURLcode (*mt_curl_getinfo_fn)(CURL *, CURLINFO, ...);
/* The data and header callbacks' type. */
typedef size_t (*mt_curl_data_callback)(char *, size_t, size_t, void *);

static inline CURLcode mt_curl_set_long(const struct mt_curl *api, CURL *h, CURLoption o,
                                        long v) {
    return ((mt_curl_setopt_fn)api->easy_setopt)(h, o, v);
}
static inline CURLcode mt_curl_set_offset(const struct mt_curl *api, CURL *h, CURLoption o,
                                          curl_off_t v) {
    return ((mt_curl_setopt_fn)api->easy_setopt)(h, o, v);
}
/* A string option (libcurl copies it), or NULL to clear it. */
static inline CURLcode mt_curl_set_string(const struct mt_curl *api, CURL *h, CURLoption o,
                                          const char *v) {
    return ((mt_curl_setopt_fn)api->easy_setopt)(h, o, v);
}
static inline CURLcode mt_curl_set_pointer(const struct mt_curl *api, CURL *h, CURLoption o,
                                           void *v) {
    return ((mt_curl_setopt_fn)api->easy_setopt)(h, o, v);
}
static inline CURLcode mt_curl_set_list(const struct mt_curl *api, CURL *h, CURLoption o,
                                        struct curl_slist *v) {
    return ((mt_curl_setopt_fn)api->easy_setopt)(h, o, v);
}
static inline CURLcode mt_curl_set_callback(const struct mt_curl *api, CURL *h, CURLoption o,
                                            mt_curl_data_callback v) {
    return ((mt_curl_setopt_fn)api->easy_setopt)(h, o, v);
}
static inline CURLcode mt_curl_get_long(const struct mt_curl *api, CURL *h, CURLINFO i,
                                        long *v) {
    return ((mt_curl_getinfo_fn)api->easy_getinfo)(h, i, v);
}
static inline CURLcode mt_curl_get_string(const struct mt_curl *api, CURL *h, CURLINFO i,
                                          char **v) {
    return ((mt_curl_getinfo_fn)api->easy_getinfo)(h, i, v);
}

/* The next finished transfer of `multi`: 1 with its handle and result, or 0. */
static inline int mt_curl_next_done(const struct mt_curl *api, CURLM *multi, CURL **easy,
                                    CURLcode *result) {
    int left = 0;
    CURLMsg *message;
    while ((message = api->multi_info_read(multi, &left))) {
        if (message->msg == CURLMSG_DONE) {
            *easy = message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}

static const size_t mt_curl_writefunc_pause = CURL_WRITEFUNC_PAUSE;
static const int mt_curlpause_cont = CURLPAUSE_CONT;

#endif
