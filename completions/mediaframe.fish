function __mediaframe_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __mediaframe_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __mediaframe_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __mediaframe_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __mediaframe_parse_tokens -S
    set -l unparsed_tokens (__mediaframe_tokens -pc)
    switch $unparsed_tokens[1]
    case 'mediaframe'
        __mediaframe_parse_subcommand -r 1 'o/output=' 'output-dir=' 'format=' 'at=' 'tolerance=' 'max-size=' 'quality=' 'cover' 'every=' 'count=' 'sheet=' 'timestamps' 'best' 'best-window=' 'waveform=' 'samples-per-pixel=' 'bits=' 'split-channels' 'waveform-size=' 'waveform-color=' 'background-color=' 'db-scale' 'waveform-axis' 'force' 'no-sync' 'j/jobs=' 'q/quiet' 'v/verbose' 'files-from=' '0/null' 'allow-references' 'input-format=' 'timeout=' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'help'
            __mediaframe_parse_subcommand -r 1 'version'
        end
    end
end

function __mediaframe_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __mediaframe_parse_subcommand -S -a positional_count
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

function __mediaframe_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __mediaframe_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__mediaframe_tokens -p)
    if test -z "$(__mediaframe_tokens -t)"
        set -l index (count (__mediaframe_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'mediaframe' -f
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" o output' -s 'o' -l 'output' -d 'The output file (a series\' pattern: out_%03d.jpg); one input only.' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" output-dir' -l 'output-dir' -d 'Write the outputs in this directory (it must exist).' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" format' -l 'format' -d 'The image format with --output-dir or beside the input: jpg, png or webp.' -rfka 'jpg png webp'
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" at' -l 'at' -d 'The time of the frame: seconds or [hh:]mm:ss[.mmm].' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" tolerance' -l 'tolerance' -d 'Take the keyframe nearest the time within this many seconds, when there is one.' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" max-size' -l 'max-size' -d 'Fit each picture inside this box (only made smaller).' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" quality' -l 'quality' -d 'JPEG and WebP quality, 1-100 (default 90).' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" cover' -l 'cover' -d 'Write the cover art (the attached picture) instead of a video frame.'
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" every' -l 'every' -d 'Write a picture every S seconds from the start.' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" count' -l 'count' -d 'Write N pictures spread over the video.' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" sheet' -l 'sheet' -d 'Write one contact sheet of COLS x ROWS tiles.' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" timestamps' -l 'timestamps' -d 'Draw each tile\'s time on a contact sheet.'
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" best' -l 'best' -d 'Write the representative frame of the opening (never blank or blurred).'
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" best-window' -l 'best-window' -d 'The opening --best looks at, in seconds (default: 10 % of the duration).' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" waveform' -l 'waveform' -d 'Write the audio\'s waveform instead: FILE.json, FILE.dat (BBC audiowaveform\'s formats) or FILE.png; json, dat or png alone names it after each input. With FILE, the input may be - (standard input).' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" samples-per-pixel' -l 'samples-per-pixel' -d 'Samples per waveform bin (default 256).' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" bits' -l 'bits' -d 'Waveform data resolution: 8 or 16 bits (default 16).' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" split-channels' -l 'split-channels' -d 'One waveform per channel instead of the channels merged.'
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" waveform-size' -l 'waveform-size' -d 'The waveform picture\'s size (default 1000x200; at most 67108864 pixels).' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" waveform-color' -l 'waveform-color' -d 'The waveform\'s colour (default 3C78D8).' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" background-color' -l 'background-color' -d 'The waveform picture\'s ground (default FFFFFF).' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" db-scale' -l 'db-scale' -d 'Draw the waveform\'s heights in decibels (-48 to 0 dBFS) instead of linearly.'
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" waveform-axis' -l 'waveform-axis' -d 'Draw a time axis along the bottom of the waveform picture.'
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" force' -l 'force' -d 'Replace existing output files (regular files only; nothing else is replaced).'
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" no-sync' -l 'no-sync' -d 'Do not fsync each finished file and its directory (faster; a crash or power cut soon after may then lose a file that was reported as written).'
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" j jobs' -s 'j' -l 'jobs' -d 'Work on this many files at once (default: the number of cores); the output keeps the input order.' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" q quiet' -s 'q' -l 'quiet' -d 'Print no report and no progress or warnings: only errors reach standard error, and the exit status tells the outcome.'
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" v verbose' -s 'v' -l 'verbose' -d 'Also print FFmpeg\'s warnings on standard error.'
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" files-from' -l 'files-from' -d 'Also take the inputs listed in this file, one per line (\'-\': standard input), read as the work goes: no argument-length limit, output before the list ends.' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" 0 null' -s '0' -l 'null' -d 'The --files-from list is separated by NUL bytes (find -print0), not newlines.'
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" allow-references' -l 'allow-references' -d 'Let playlists and lists (HLS, DASH, concat, image patterns) open the local files they name.'
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" input-format' -l 'input-format' -d 'Read the inputs as this format instead of recognizing it from their bytes: an FFmpeg demuxer name (mp3, mov, matroska, mpegts, jpeg_pipe, ...; \'ffmpeg -demuxers\' lists them). Demuxers that open other files (hls, concat, image2, ...) need --allow-references.' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" timeout' -l 'timeout' -d 'Give up on an input after this many seconds (error code timeout); the others go on. A FIFO that nobody writes to fails after 10 s without it.' -rfka ''
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" version' -l 'version' -d 'Show the version.'
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_positional "mediaframe" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'mediaframe' -n '__mediaframe_should_offer_completions_for_flags_or_options "mediaframe help" version' -l 'version' -d 'Show the version.'
