// Reading a numeric matrix from a CSV file (the `represent` command's X and P).
#pragma once

#include <Eigen/Core>

#include <string>

namespace headroom::worker {

// Rows are lines, values separated by commas (spaces around them allowed). Empty lines and
// lines starting with '#' are skipped. Throws std::invalid_argument naming the file, line and
// column of the first problem (unreadable file, non-number or nan / inf, ragged row, empty matrix).
Eigen::MatrixXd read_csv_matrix(const std::string& path);

}  // namespace headroom::worker
