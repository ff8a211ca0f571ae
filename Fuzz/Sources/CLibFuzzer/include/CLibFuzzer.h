// libFuzzer's entry point for programs that have their own main (LLVM's FuzzerInterface.h).
#ifndef COURIER_CLIBFUZZER_H
#define COURIER_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer with the command line `argc`/`argv` (its usual flags and corpus folders),
/// calling `callback` for each input. Defined in libclang_rt.fuzzer, which
/// `-sanitize=fuzzer` links.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
