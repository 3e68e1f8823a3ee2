#include "CFuzzerDriver.h"

#include <stdlib.h>

// In libclang_rt.fuzzer, which `-sanitize=fuzzer` links.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *data, size_t size));

void fuzz_run_driver(int argc, char **argv, fuzz_test_one_input test) {
    exit(LLVMFuzzerRunDriver(&argc, &argv, test));
}
