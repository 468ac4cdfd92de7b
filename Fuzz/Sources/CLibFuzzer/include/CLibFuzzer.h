#ifndef GANGWAY_FUZZ_CLIBFUZZER_H
#define GANGWAY_FUZZ_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, for a program with a `main` of its own (a SwiftPM executable's,
/// which SwiftPM renames and points `main` at).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
