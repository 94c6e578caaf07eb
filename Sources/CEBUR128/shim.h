// libebur128 (EBU R128 / ITU-R BS.1770 loudness), found with pkg-config (libebur128).
#include <ebur128.h>
