function __mediacompat_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __mediacompat_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __mediacompat_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __mediacompat_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __mediacompat_parse_tokens -S
    set -l unparsed_tokens (__mediacompat_tokens -pc)
    switch $unparsed_tokens[1]
    case 'mediacompat'
        __mediacompat_parse_subcommand -r 1 'p/platform=+' 'all-platforms' 'suggest' 'json' 'ndjson' 'strict' 'delivery=' 'list-platforms' 'explain=' 'fix' 'o/output=' 'output-dir=' 'always-write' 'dry-run' 'fast-recheck' 'force' 'no-sync' 'j/jobs=' 'q/quiet' 'v/verbose' 'files-from=' '0/null' 'allow-references' 'input-format=' 'allow-network' 'max-bytes=' 'header=+' 'timeout=' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'help'
            __mediacompat_parse_subcommand -r 1 'version'
        end
    end
end

function __mediacompat_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __mediacompat_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __mediacompat_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __mediacompat_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__mediacompat_tokens -p)
    if test -z "$(__mediacompat_tokens -t)"
        set -l index (count (__mediacompat_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'mediacompat' -f
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat"' -s 'p' -l 'platform' -d 'Platforms or aliases, comma-separated or repeated (default: the modern platforms).' -rfka 'android-2.3.3 android-3.0 android-4.0 android-browser-2012 ipad-browser-2012 iphone-2012 iphone-browser-2012 mobile-high mobile-low mobile-medium android-14 apple-hls chrome firefox ios-17 safari android ios iphone web'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" all-platforms' -l 'all-platforms' -d 'Without --platform: every platform, the 2012 ones too (default: the modern ones).'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" suggest' -l 'suggest' -d 'Print an ffmpeg command that would make each failing file pass.'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" json' -l 'json' -d 'Print JSON (an object for one file, an array for several).'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" ndjson' -l 'ndjson' -d 'Print one compact JSON object per line.'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" strict' -l 'strict' -d 'Warnings fail too (exit 1).'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" delivery' -l 'delivery' -d 'How the file is delivered: file (default) or stream (adds streaming advisories).' -rfka 'file stream'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" list-platforms' -l 'list-platforms' -d 'List the platforms (with --json: as JSON).'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" explain' -l 'explain' -d 'Print a platform\'s rules in words, with their sources.' -rfka 'android-2.3.3 android-3.0 android-4.0 android-browser-2012 ipad-browser-2012 iphone-2012 iphone-browser-2012 mobile-high mobile-low mobile-medium android-14 apple-hls chrome firefox ios-17 safari android ios iphone web'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" fix' -l 'fix' -d 'Make each file play on every --platform with the least work (see below).'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" o output' -s 'o' -l 'output' -d 'With --fix and one file: the output file.' -rF
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" output-dir' -l 'output-dir' -d 'With --fix: write each output into this directory (NAME.EXT; it must exist).' -rfa '(__mediacompat_complete_directories)'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" always-write' -l 'always-write' -d 'With --fix: write an output also for a file that already passes (a copy).'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" dry-run' -l 'dry-run' -d 'With --fix: print the plan and its settings, write nothing.'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" fast-recheck' -l 'fast-recheck' -d 'With --fix: the re-check decodes only video keyframes (and all audio), as mediaprobe --verify-fast.'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" force' -l 'force' -d 'Replace existing output files (regular files only; nothing else is replaced).'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" no-sync' -l 'no-sync' -d 'Do not fsync each finished file and its directory (faster; a crash or power cut soon after may then lose a file that was reported as written).'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" j jobs' -s 'j' -l 'jobs' -d 'Work on this many files at once (default: the number of cores); the output keeps the input order.' -rfka ''
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" q quiet' -s 'q' -l 'quiet' -d 'Print no report and no progress or warnings: only errors reach standard error, and the exit status tells the outcome.'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" v verbose' -s 'v' -l 'verbose' -d 'Also print FFmpeg\'s warnings on standard error.'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" files-from' -l 'files-from' -d 'Also take the inputs listed in this file, one per line (\'-\': standard input), read as the work goes: no argument-length limit, output before the list ends.' -rfka ''
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" 0 null' -s '0' -l 'null' -d 'The --files-from list is separated by NUL bytes (find -print0), not newlines.'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" allow-references' -l 'allow-references' -d 'Let playlists and lists (HLS, DASH, concat, image patterns) open the local files they name.'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" input-format' -l 'input-format' -d 'Read the inputs as this format instead of recognizing it from their bytes: an FFmpeg demuxer name (mp3, mov, matroska, mpegts, jpeg_pipe, ...; \'ffmpeg -demuxers\' lists them). Demuxers that open other files (hls, concat, image2, ...) need --allow-references.' -rfka ''
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" allow-network' -l 'allow-network' -d 'Read inputs named http:// or https:// URLs over the network: bounded range requests on one connection, retried on resets, timeouts and 5xx, resumed at the exact byte. Never references inside files; redirects to other schemes fail.'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" max-bytes' -l 'max-bytes' -d 'Read at most this many bytes of one input (warning byte_limit_reached).' -rfka ''
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat"' -l 'header' -d 'Send this request header with every request of a URL (repeatable), to the URL\'s host only; \'@FILE\' reads one \'Name: value\' a line from FILE (keeps a token out of the process list). Values never appear in output.' -rfka ''
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" timeout' -l 'timeout' -d 'Give up on an input after this many seconds (error code timeout); the others go on. A FIFO that nobody writes to fails after 10 s without it.' -rfka ''
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" version' -l 'version' -d 'Show the version.'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_positional "mediacompat" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'mediacompat' -n '__mediacompat_should_offer_completions_for_flags_or_options "mediacompat help" version' -l 'version' -d 'Show the version.'
