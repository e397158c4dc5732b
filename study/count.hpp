// The two commands for people's own data: count a file's bytes with any
// implementation, and write a study input's exact bytes.
#pragma once
#include <cstdint>
#include <string>

#include "study/bins.hpp"
#include "study/executor.hpp"
#include "study/inputs.hpp"
#include "study/registry.hpp"

namespace hs {

// Streams `path` ("-" for standard input) through `impl` in chunks, so a
// file larger than memory works. Throws Error for missing, unreadable or
// directory paths.
Bins count_stream(const std::string& path, const Implementation& impl, Executor& executor, int threads);

// Writes `size` bytes of a synthetic input to `path` ("-" for standard
// output), streaming, as write_output_file does (study/files.hpp): an
// existing regular file is replaced only with `force`.
void generate_input(const InputSpec& spec, std::uint64_t size, const std::string& path, bool force);

}  // namespace hs
