// Starting a child process that dies with its parent (Linux PR_SET_PDEATHSIG), which
// posix_spawn cannot ask for: the child sets it between fork and exec. Used by mediamerge for
// ffmpeg, so a SIGKILLed mediamerge (kill -9, timeout -s KILL, a batch scheduler) leaves no
// ffmpeg running.
#ifndef MT_SPAWN_H
#define MT_SPAWN_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (NULL-terminated) in the caller's process group, with
/// its standard input, output and error on `in_fd` (-1: /dev/null), `out_fd` and `err_fd`, every
/// signal unblocked and SIGINT, SIGTERM, SIGPIPE and SIGQUIT at their defaults. The child gets
/// SIGKILL when the thread that started it ends (Linux: the parent's death; call from a thread
/// that lives as long as the child should, the main thread). A parent that died before the
/// child armed the signal makes the child exit at once (status 127).
///
/// Returns the child's pid, or -errno when it could not be started (fork failed, or exec
/// failed: ENOENT, EACCES, ...). Only async-signal-safe calls run between fork and exec.
pid_t mt_spawn(const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd,
               int err_fd);

#endif
