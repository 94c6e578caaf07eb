function __mediaprobe_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __mediaprobe_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __mediaprobe_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __mediaprobe_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __mediaprobe_parse_tokens -S
    set -l unparsed_tokens (__mediaprobe_tokens -pc)
    switch $unparsed_tokens[1]
    case 'mediaprobe'
        __mediaprobe_parse_subcommand -r 1 'scan' 'verify' 'verify-fast' 'hash=' 'summary' 'ndjson' 'j/jobs=' 'r/recursive' 'files-from=' '0/null' 'allow-references' 'input-format=' 'allow-network' 'max-bytes=' 'header=+' 'timeout=' 'compat=+' 'q/quiet' 'v/verbose' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'help'
            __mediaprobe_parse_subcommand -r 1 'version'
        end
    end
end

function __mediaprobe_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __mediaprobe_parse_subcommand -S -a positional_count
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

function __mediaprobe_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __mediaprobe_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__mediaprobe_tokens -p)
    if test -z "$(__mediaprobe_tokens -t)"
        set -l index (count (__mediaprobe_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'mediaprobe' -f
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" scan' -l 'scan' -d 'Demux every packet (no decoding): exact frame counts and durations, CFR/VFR verdict, min/max frame rate, and `span`, the interval the samples cover (beside `duration`, what the container declares).'
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" verify' -l 'verify' -d 'Decode every audio and video stream to the end (--verify), or only the video keyframes (--verify-fast; also --verify=full|fast): counts, damage, an integrity verdict.'
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" verify-fast' -l 'verify-fast' -d 'Decode every audio and video stream to the end (--verify), or only the video keyframes (--verify-fast; also --verify=full|fast): counts, damage, an integrity verdict.'
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" hash' -l 'hash' -d 'With --verify: hash the decoded content as ffmpeg\'s streamhash muxer does (implies --verify).' -rfka 'md5'
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" summary' -l 'summary' -d 'Print a short human-readable table instead of JSON.'
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" ndjson' -l 'ndjson' -d 'Print one compact JSON object per line, each as soon as it (and all before it) are done.'
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" j jobs' -s 'j' -l 'jobs' -d 'Work on this many files at once (default: the number of cores); the output keeps the input order.' -rfka ''
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" r recursive' -s 'r' -l 'recursive' -d 'Probe the files below directory arguments.'
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" files-from' -l 'files-from' -d 'Also take the inputs listed in this file, one per line (\'-\': standard input), read as the work goes: no argument-length limit, output before the list ends.' -rfka ''
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" 0 null' -s '0' -l 'null' -d 'The --files-from list is separated by NUL bytes (find -print0), not newlines.'
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" allow-references' -l 'allow-references' -d 'Let playlists and lists (HLS, DASH, concat, image patterns) open the local files they name.'
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" input-format' -l 'input-format' -d 'Read the inputs as this format instead of recognizing it from their bytes: an FFmpeg demuxer name (mp3, mov, matroska, mpegts, jpeg_pipe, ...; \'ffmpeg -demuxers\' lists them). Demuxers that open other files (hls, concat, image2, ...) need --allow-references.' -rfka ''
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" allow-network' -l 'allow-network' -d 'Read inputs named http:// or https:// URLs over the network: bounded range requests on one connection, retried on resets, timeouts and 5xx, resumed at the exact byte. Never references inside files; redirects to other schemes fail.'
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" max-bytes' -l 'max-bytes' -d 'Read at most this many bytes of one input (warning byte_limit_reached).' -rfka ''
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe"' -l 'header' -d 'Send this request header with every request of a URL (repeatable), to the URL\'s host only; \'@FILE\' reads one \'Name: value\' a line from FILE (keeps a token out of the process list). Values never appear in output.' -rfka ''
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" timeout' -l 'timeout' -d 'Give up on an input after this many seconds (error code timeout); the others go on. A FIFO that nobody writes to fails after 10 s without it.' -rfka ''
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe"' -l 'compat' -d 'Add mediacompat\'s verdicts for these platforms (comma-separated ids or aliases) as "compat".' -rfka 'android-2.3.3 android-3.0 android-4.0 android-browser-2012 ipad-browser-2012 iphone-2012 iphone-browser-2012 mobile-high mobile-low mobile-medium android-14 apple-hls chrome firefox ios-17 safari android ios iphone web'
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" q quiet' -s 'q' -l 'quiet' -d 'Print no report and no progress or warnings: only errors reach standard error, and the exit status tells the outcome.'
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" v verbose' -s 'v' -l 'verbose' -d 'Also print FFmpeg\'s warnings on standard error.'
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" version' -l 'version' -d 'Show the version.'
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_positional "mediaprobe" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'mediaprobe' -n '__mediaprobe_should_offer_completions_for_flags_or_options "mediaprobe help" version' -l 'version' -d 'Show the version.'
