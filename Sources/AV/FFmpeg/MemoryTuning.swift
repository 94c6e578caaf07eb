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
///
/// `keepingFree` raises the 64 MiB kept spare, and `oneArena` makes every thread allocate from
/// the main heap (`M_ARENA_MAX` 1), for a batch whose inputs each take more than 64 MiB
/// (`mediaframe`'s posters of many files: a 2160p HEVC decoder's pictures and tables are
/// ~150 MB). A thread's own arena is made of 64 MiB heaps, each unmapped as it empties, so a
/// worker thread's (or a decoder thread's) pictures were mapped and zeroed by the kernel anew
/// for each input whatever the trim threshold; the main heap keeps them. 200 fixture posters
/// at --jobs 2: 0.82 s of system time before, 0.26 s after; the peak is the same (the memory
/// kept is what the largest input needed).
public func tuneMemoryAllocator(
  heapBlocksUpTo mmapThreshold: Int32 = 1 << 20, keepingFree trimThreshold: Int32 = 64 << 20,
  oneArena: Bool = false
) {
  if oneArena { mt_one_arena() }
  mt_keep_freed_memory(trimThreshold, 1 << 20, mmapThreshold)
}
