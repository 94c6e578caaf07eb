import CFFmpeg

/// Keeps freed memory in the process instead of handing it back to the kernel after every file:
/// glibc trims the top of the heap whenever 128 KiB are free there, and FFmpeg's contexts are
/// allocated and freed once per input, so a batch paid a page fault for every page of them again
/// and again. The heap keeps at most 64 MiB spare: memory does not grow with the number of
/// inputs.
///
/// Setting the trim threshold also freezes glibc's adaptive mmap threshold at 128 KiB, so every
/// larger block was a fresh mapping, zeroed by the kernel page by page and unmapped when freed.
/// Blocks up to `heapBlocksUpTo` come from the heap instead:
/// - 1 MiB by default: a decoder's tables and small pictures; large blocks that grow by
///   reallocation (libavformat's MP4 index) stay mappings that grow in place (in the heap, a
///   60-minute MP4's index cost +13 MiB instead of +4.5 MiB). Probing 200 files: 7,000-10,000
///   page faults and 0.05-0.08 s of system time, 56,000-92,000 and 0.15-0.21 s at 128 KiB.
/// - 32 MiB (glibc's own bound for its adaptive threshold) when decoding the pictures of many
///   files (`--verify`): a 2160p 10-bit picture is ~25 MB, and each file mapped its pictures
///   anew (200 fixture copies: 370,000 page faults and 0.65 s of system time, 235,000 and
///   0.43 s). One file gains nothing from it (a decoder pools its pictures).
///
/// The heap grows 1 MiB past each request: a 16 MiB pad made each decoder thread's arena settle
/// at ~16.6 MiB (`--verify` took 84 MB on a 10-minute 240p file, 54 MB now).
public func tuneMemoryAllocator(heapBlocksUpTo mmapThreshold: Int32 = 1 << 20) {
  mt_keep_freed_memory(64 << 20, 1 << 20, mmapThreshold)
}
