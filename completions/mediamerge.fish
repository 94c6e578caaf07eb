function __mediamerge_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __mediamerge_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __mediamerge_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __mediamerge_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __mediamerge_parse_tokens -S
    set -l unparsed_tokens (__mediamerge_tokens -pc)
    switch $unparsed_tokens[1]
    case 'mediamerge'
        __mediamerge_parse_subcommand -r 1 'o/output=' 'force' 'no-sync' 'plan' 'composition=' 'print-composition' 'format=' 'dry-run' 'auto' 'copy' 'encode' 'size=' 'fit' 'fill' 'p/platform=' 'preset=' 'video-codec=' 'audio-codec=' 'crf=' 'bitrate=' 'bits-per-pixel=' 'max-size=' 'j/jobs=' 'q/quiet' 'v/verbose' 'files-from=' '0/null' 'allow-references' 'input-format=' 'timeout=' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'help'
            __mediamerge_parse_subcommand -r 1 'version'
        end
    end
end

function __mediamerge_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __mediamerge_parse_subcommand -S -a positional_count
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

function __mediamerge_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __mediamerge_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__mediamerge_tokens -p)
    if test -z "$(__mediamerge_tokens -t)"
        set -l index (count (__mediamerge_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'mediamerge' -f
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" o output' -s 'o' -l 'output' -d 'The merged file (.mp4, .m4v, .mov; .m4a audio only; .webm; .mkv).' -rfka ''
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" force' -l 'force' -d 'Replace existing output files (regular files only; nothing else is replaced).'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" no-sync' -l 'no-sync' -d 'Do not fsync each finished file and its directory (faster; a crash or power cut soon after may then lose a file that was reported as written).'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" plan' -l 'plan' -d 'Print the plan as JSON and do nothing else.'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" composition' -l 'composition' -d 'Render this composition document (JSON or OpenTimelineIO .otio; - reads standard input; its sources are relative to its folder).' -rfa '(set -l exts \'json\' \'otio\';for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.{$exts};printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" print-composition' -l 'print-composition' -d 'Print the composition document (with --composition: as read; else the whole clips as one) and do nothing else.'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" format' -l 'format' -d 'The layout --print-composition writes: json (default) or otio.' -rfka 'json otio'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" dry-run' -l 'dry-run' -d 'Plan and check that the output may be written, print the summary, run nothing.'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" auto' -l 'auto' -d 'Copy the video when every clip shares its codec parameters, else encode (default).'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" copy' -l 'copy' -d 'Copy the video or fail (incompatible_inputs, with every reason).'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" encode' -l 'encode' -d 'Always decode, normalise and encode.'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" size' -l 'size' -d 'Render at this size (even numbers; default: the largest display width by the largest display height).' -rfka ''
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" fit' -l 'fit' -d 'Fit each clip inside the render size, black bars around it (default).'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" fill' -l 'fill' -d 'Fill the render size with each clip, cropping what overflows.'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" p platform' -s 'p' -l 'platform' -d 'Encode with this platform\'s recipe (mediacompat\'s database) and check the output passes there.' -rfka 'android-2.3.3 android-3.0 android-4.0 android-browser-2012 ipad-browser-2012 iphone-2012 iphone-browser-2012 mobile-high mobile-low mobile-medium android-14 apple-hls chrome firefox ios-17 safari android ios iphone web'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" preset' -l 'preset' -d 'Encode with an AVAssetExportSession preset: low, medium, highest, 640x480, 960x540, 1280x720, 1920x1080, 3840x2160, hevc-highest, hevc-1920x1080, hevc-3840x2160, m4a (audio only, .m4a), passthrough (copy, or unsupported_encoding); AVFoundation\'s names (AVAssetExportPreset1920x1080) too.' -rfka 'low medium highest 640x480 960x540 1280x720 1920x1080 3840x2160 hevc-highest hevc-1920x1080 hevc-3840x2160 m4a passthrough'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" video-codec' -l 'video-codec' -d 'The video codec: h264 (libx264), hevc (libx265, tagged hvc1), vp9 (libvpx-vp9), av1 (libsvtav1). Default h264; vp9 for .webm.' -rfka 'h264 hevc vp9 av1'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" audio-codec' -l 'audio-codec' -d 'The audio codec: aac or opus (libopus, 48 kHz). Default aac; opus for .webm.' -rfka 'aac opus'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" crf' -l 'crf' -d 'Constant quality on the encoder\'s scale (x264/x265 0-51, VP9/AV1 0-63; lower is better).' -rfka ''
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" bitrate' -l 'bitrate' -d 'The video\'s average bit rate in bits per second (800k, 2.5M, 2500000).' -rfka ''
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" bits-per-pixel' -l 'bits-per-pixel' -d 'The video bit rate as bits per pixel per frame: rate = B x width x height x fps.' -rfka ''
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" max-size' -l 'max-size' -d 'Cap the output\'s size (8MB = 8,000,000 bytes, 8MiB, 500kB, or bytes): measured passes until it lands within 95-100% of the cap (H.264: x264\'s two-pass after a first pass that misses), or under it when the content needs fewer bits; without video (--preset m4a) they choose the AAC rate.' -rfka ''
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" j jobs' -s 'j' -l 'jobs' -d 'Work on this many files at once (default: the number of cores); the output keeps the input order.' -rfka ''
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" q quiet' -s 'q' -l 'quiet' -d 'Print no report and no progress or warnings: only errors reach standard error, and the exit status tells the outcome.'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" v verbose' -s 'v' -l 'verbose' -d 'Also print FFmpeg\'s warnings on standard error.'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" files-from' -l 'files-from' -d 'Also take the inputs listed in this file, one per line (\'-\': standard input), read as the work goes: no argument-length limit, output before the list ends.' -rfka ''
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" 0 null' -s '0' -l 'null' -d 'The --files-from list is separated by NUL bytes (find -print0), not newlines.'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" allow-references' -l 'allow-references' -d 'Let playlists and lists (HLS, DASH, concat, image patterns) open the local files they name.'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" input-format' -l 'input-format' -d 'Read the inputs as this format instead of recognizing it from their bytes: an FFmpeg demuxer name (mp3, mov, matroska, mpegts, jpeg_pipe, ...; \'ffmpeg -demuxers\' lists them). Demuxers that open other files (hls, concat, image2, ...) need --allow-references.' -rfka ''
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" timeout' -l 'timeout' -d 'Give up after this many seconds in all: probing, rendering and checking (error code timeout; nothing is written).' -rfka ''
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" version' -l 'version' -d 'Show the version.'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_positional "mediamerge" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'mediamerge' -n '__mediamerge_should_offer_completions_for_flags_or_options "mediamerge help" version' -l 'version' -d 'Show the version.'
