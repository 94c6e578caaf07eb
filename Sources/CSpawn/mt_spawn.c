#define _GNU_SOURCE
#include "mt_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/// Writes all of `size` bytes (the exec error back to the parent).
static void write_all(int fd, const void *data, size_t size) {
  const char *bytes = data;
  while (size > 0) {
    ssize_t written = write(fd, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;
    bytes += written;
    size -= (size_t)written;
  }
}

/// Moves `fd` onto `target` (dup2, which clears close-on-exec on the copy).
static int place(int fd, int target) {
  if (fd == target) {
    int flags = fcntl(fd, F_GETFD);
    return flags < 0 ? -1 : fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
  }
  while (dup2(fd, target) < 0) {
    if (errno != EINTR) return -1;
  }
  return 0;
}

pid_t mt_spawn(const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd,
               int err_fd) {
  // A close-on-exec pipe carries exec's errno back; it closes (0 bytes) when exec succeeds.
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return -errno;
  pid_t parent = getpid();
  // The mask is restored in the child before exec; blocking everything across fork keeps a
  // signal handler of the parent from running in the child.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t child = fork();
  if (child == 0) {
    int error = 0;
#ifdef __linux__
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) error = errno;
    // The parent may have died before the signal was armed: then no one would send it.
    if (!error && getppid() != parent) _exit(127);
#endif
    int signals[] = {SIGINT, SIGTERM, SIGPIPE, SIGQUIT};
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) {
      signal(signals[i], SIG_DFL);
    }
    if (!error && in_fd < 0) {
      in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (in_fd < 0) error = errno;
    }
    if (!error && (place(in_fd, 0) != 0 || place(out_fd, 1) != 0 || place(err_fd, 2) != 0)) {
      error = errno;
    }
    if (!error) {
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, NULL);
      execve(path, argv, envp);
      error = errno;
    }
    write_all(report[1], &error, sizeof error);
    _exit(127);
  }
  int saved = errno;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  close(report[1]);
  if (child < 0) {
    close(report[0]);
    return -saved;
  }
  int error = 0;
  ssize_t got;
  do {
    got = read(report[0], &error, sizeof error);
  } while (got < 0 && errno == EINTR);
  close(report[0]);
  if (got == (ssize_t)sizeof error && error != 0) {
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return -error;
  }
  return child;
}
