function __media2wav_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __media2wav_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __media2wav_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __media2wav_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __media2wav_parse_tokens -S
    set -l unparsed_tokens (__media2wav_tokens -pc)
    switch $unparsed_tokens[1]
    case 'media2wav'
        __media2wav_parse_subcommand -r 1 'o/output=' 'output-dir=' 'force' 'no-sync' 'stream=' 'language=' 'format=' 'rate=' 'channels=' 'start=' 'end=' 'duration=' 'fade-in=' 'fade-out=' 'gain=' 'analyze' 'analyze-only' 'silence-threshold=' 'silence-duration=' 'normalize=' 'true-peak=' 'j/jobs=' 'json' 'q/quiet' 'v/verbose' 'files-from=' '0/null' 'allow-references' 'input-format=' 'allow-network' 'max-bytes=' 'header=+' 'timeout=' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'mix'
            __media2wav_parse_subcommand -r 1 'o/output=' 'length=' 'rate=' 'channels=' 'format=' 'limit' 'description=' 'json' 'force' 'no-sync' 'allow-references' 'input-format=' 'q/quiet' 'v/verbose' 'version' 'h/help'
        case 'help'
            __media2wav_parse_subcommand -r 1 'version'
        end
    end
end

function __media2wav_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __media2wav_parse_subcommand -S -a positional_count
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

function __media2wav_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __media2wav_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__media2wav_tokens -p)
    if test -z "$(__media2wav_tokens -t)"
        set -l index (count (__media2wav_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'media2wav' -f
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" o output' -s 'o' -l 'output' -d 'The output file (\'-\' for standard output); one input only.' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" output-dir' -l 'output-dir' -d 'Write the outputs in this directory (it must exist).' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" force' -l 'force' -d 'Replace existing output files (regular files only; nothing else is replaced).'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" no-sync' -l 'no-sync' -d 'Do not fsync each finished file and its directory (faster; a crash or power cut soon after may then lose a file that was reported as written).'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" stream' -l 'stream' -d 'Decode the N-th audio stream, counting from 0 (as -map 0:a:N).' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" language' -l 'language' -d 'Decode the first audio stream in this language (e.g. eng).' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" format' -l 'format' -d 'Sample encoding: u8, s16, s24, s32, f32, f64, or auto (keep the source\'s depth).' -rfka 'u8 s16 s24 s32 f32 f64 auto'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" rate' -l 'rate' -d 'Output sample rate in Hz (default: the source\'s).' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" channels' -l 'channels' -d 'Output channels, down- or upmixed (default: the source\'s).' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" start' -l 'start' -d 'Start here: seconds or [hh:]mm:ss[.mmm].' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" end' -l 'end' -d 'Stop here (a time in the input, like --start).' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" duration' -l 'duration' -d 'Write at most this long (seconds or [hh:]mm:ss[.mmm]).' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" fade-in' -l 'fade-in' -d 'Fade in linearly over this many seconds.' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" fade-out' -l 'fade-out' -d 'Fade out linearly over the last seconds of the output.' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" gain' -l 'gain' -d 'Change the volume by this many decibels (e.g. -6).' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" analyze' -l 'analyze' -d 'Add an analysis of the written samples to the --json report: integrated loudness, loudness range, true peak and sample peak (EBU R128 / ITU-R BS.1770-4, libebur128), RMS and DC offset per channel, clipped samples, silence spans, the exact sample count. Measured in the same decode pass, on its own thread.'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" analyze-only' -l 'analyze-only' -d 'Write no WAV: print the analysis report of the decoded samples (32-bit float, after --start/--end/--duration, --rate, --channels, --gain and fades).'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" silence-threshold' -l 'silence-threshold' -d 'Silence is every channel below this level, in dBFS (default -60, as silencedetect).' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" silence-duration' -l 'silence-duration' -d 'The shortest silence reported, in seconds (default 2, as silencedetect).' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" normalize' -l 'normalize' -d 'Normalize to this integrated loudness in LUFS (e.g. -23, -16): measure, then write with one linear gain, lowered so the true peak stays at or below --true-peak. Reads the input twice; the output is measured again while it is written.' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" true-peak' -l 'true-peak' -d 'The true-peak ceiling for --normalize, in dBTP (default -1).' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" j jobs' -s 'j' -l 'jobs' -d 'Work on this many files at once (default: the number of cores); the output keeps the input order.' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" json' -l 'json' -d 'Print a JSON report per file on standard output (an object, or an array for several).'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" q quiet' -s 'q' -l 'quiet' -d 'Print no report and no progress or warnings: only errors reach standard error, and the exit status tells the outcome.'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" v verbose' -s 'v' -l 'verbose' -d 'Also print FFmpeg\'s warnings on standard error.'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" files-from' -l 'files-from' -d 'Also take the inputs listed in this file, one per line (\'-\': standard input), read as the work goes: no argument-length limit, output before the list ends.' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" 0 null' -s '0' -l 'null' -d 'The --files-from list is separated by NUL bytes (find -print0), not newlines.'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" allow-references' -l 'allow-references' -d 'Let playlists and lists (HLS, DASH, concat, image patterns) open the local files they name.'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" input-format' -l 'input-format' -d 'Read the inputs as this format instead of recognizing it from their bytes: an FFmpeg demuxer name (mp3, mov, matroska, mpegts, jpeg_pipe, ...; \'ffmpeg -demuxers\' lists them). Demuxers that open other files (hls, concat, image2, ...) need --allow-references.' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" allow-network' -l 'allow-network' -d 'Read inputs named http:// or https:// URLs over the network: bounded range requests on one connection, retried on resets, timeouts and 5xx, resumed at the exact byte. Never references inside files; redirects to other schemes fail.'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" max-bytes' -l 'max-bytes' -d 'Read at most this many bytes of one input (warning byte_limit_reached).' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav"' -l 'header' -d 'Send this request header with every request of a URL (repeatable), to the URL\'s host only; \'@FILE\' reads one \'Name: value\' a line from FILE (keeps a token out of the process list). Values never appear in output.' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" timeout' -l 'timeout' -d 'Give up on an input after this many seconds (error code timeout); the others go on. A FIFO that nobody writes to fails after 10 s without it.' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" version' -l 'version' -d 'Show the version.'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_positional "media2wav" -eq 1' -fa 'mix' -d 'Mix several inputs into one WAV with AVFoundation\'s semantics (AVAudioMix).'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_positional "media2wav" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav mix" o output' -s 'o' -l 'output' -d 'The output file (\'-\' for standard output).' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav mix" length' -l 'length' -d 'The output\'s length: first (default), longest, shortest, or seconds.' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav mix" rate' -l 'rate' -d 'Output sample rate in Hz (default: the first input\'s).' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav mix" channels' -l 'channels' -d 'Output channels (default: the first input\'s).' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav mix" format' -l 'format' -d 'Sample encoding: u8, s16, s24, s32, f32, f64.' -rfka 'u8 s16 s24 s32 f32 f64 auto'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav mix" limit' -l 'limit' -d 'Bend samples past full scale with a soft limiter instead of letting them clip.'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav mix" description' -l 'description' -d 'The mix as JSON (inputs with their options, length, format); no inputs on the command line then.' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav mix" json' -l 'json' -d 'Print a JSON report on standard output.'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav mix" force' -l 'force' -d 'Replace existing output files (regular files only; nothing else is replaced).'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav mix" no-sync' -l 'no-sync' -d 'Do not fsync each finished file and its directory (faster; a crash or power cut soon after may then lose a file that was reported as written).'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav mix" allow-references' -l 'allow-references' -d 'Let playlists and lists (HLS, DASH, concat, image patterns) open the local files they name.'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav mix" input-format' -l 'input-format' -d 'Read the inputs as this format instead of recognizing it from their bytes: an FFmpeg demuxer name (mp3, mov, matroska, mpegts, jpeg_pipe, ...; \'ffmpeg -demuxers\' lists them). Demuxers that open other files (hls, concat, image2, ...) need --allow-references.' -rfka ''
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav mix" q quiet' -s 'q' -l 'quiet' -d 'Print no report and no progress or warnings: only errors reach standard error, and the exit status tells the outcome.'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav mix" v verbose' -s 'v' -l 'verbose' -d 'Also print FFmpeg\'s warnings on standard error.'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav mix" version' -l 'version' -d 'Show the version.'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav mix" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'media2wav' -n '__media2wav_should_offer_completions_for_flags_or_options "media2wav help" version' -l 'version' -d 'Show the version.'
