/* The floor for probing many files: what libavformat alone costs per file, on one thread. */
#include <libavformat/avformat.h>
#include <stdio.h>
int main(int argc, char **argv) {
    av_log_set_level(AV_LOG_QUIET);
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        AVFormatContext *ctx = NULL;
        if (avformat_open_input(&ctx, argv[i], NULL, NULL) < 0) { failed++; continue; }
        if (avformat_find_stream_info(ctx, NULL) < 0) failed++;
        avformat_close_input(&ctx);
    }
    printf("%d files, %d failed\n", argc - 1, failed);
    return 0;
}
