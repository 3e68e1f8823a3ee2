// Hands a fuzz target's process over to libFuzzer. SwiftPM links every executable's own entry point
// as `main` (swiftlang/swift-package-manager#8731), so libFuzzer's `main` is never linked; each
// target's main.swift calls this instead, which runs libFuzzer's driver with the same arguments.
#ifndef CFUZZERDRIVER_H
#define CFUZZERDRIVER_H

#include <stddef.h>
#include <stdint.h>

typedef int (*fuzz_test_one_input)(const uint8_t *data, size_t size);

/// Runs libFuzzer (`LLVMFuzzerRunDriver`) on `test` with the process's arguments, and exits with its status.
_Noreturn void fuzz_run_driver(int argc, char **argv, fuzz_test_one_input test);

#endif
