// What `histostudy run` prints when it finishes: the lesson's table layout
// for each toolchain, then every measurement. (plots/ makes the paper's
// tables from the recorded JSON; this is the terminal view.)
#pragma once
#include <ostream>
#include <vector>

#include "driver/harness.hpp"

namespace hs {

void print_lesson_tables(const std::vector<Row>& rows, std::ostream& out);
void print_all_rows(const std::vector<Row>& rows, std::ostream& out);

}  // namespace hs
