/* pb_fuzz_file.h - parsers that read a path get the fuzzer's bytes through
 * one temporary file per process, rewritten for every input. */
#ifndef PB_FUZZ_FILE_H
#define PB_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Writes data to this process's temporary file and returns its path
 * (the same buffer every call), or NULL when it cannot. */
const char *pb_fuzz_file(const uint8_t *data, size_t size, char *path, size_t len);

#endif
