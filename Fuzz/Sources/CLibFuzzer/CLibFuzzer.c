// The declaration in include/CLibFuzzer.h is all this target holds; libFuzzer defines
// the function (linked with `-sanitize=fuzzer`).
#include "CLibFuzzer.h"
