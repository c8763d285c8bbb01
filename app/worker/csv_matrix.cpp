#include "app/worker/csv_matrix.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace headroom::worker {

Eigen::MatrixXd read_csv_matrix(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw std::invalid_argument(path + ": is a folder; give a CSV file of the matrix");
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open the file (missing or unreadable)");
  std::vector<std::vector<double>> rows;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    std::vector<double> row;
    std::stringstream ss(line);
    std::string cell;
    int col = 0;
    while (std::getline(ss, cell, ',')) {
      ++col;
      const auto b = cell.find_first_not_of(" \t"), e = cell.find_last_not_of(" \t");
      const std::string text = b == std::string::npos ? "" : cell.substr(b, e - b + 1);
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
        throw std::invalid_argument(path + ":" + std::to_string(line_no) + ": column " + std::to_string(col) + " is '" +
                                    text + "', not a finite number");
      row.push_back(v);
    }
    if (!rows.empty() && row.size() != rows.front().size())
      throw std::invalid_argument(path + ":" + std::to_string(line_no) + ": has " + std::to_string(row.size()) +
                                  " values but the first row has " + std::to_string(rows.front().size()) +
                                  "; every row needs the same number of columns");
    rows.push_back(std::move(row));
  }
  if (rows.empty()) throw std::invalid_argument(path + ": no numbers in the file (expected a CSV matrix)");
  Eigen::MatrixXd m(rows.size(), rows.front().size());
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = 0; j < rows[i].size(); ++j) m(i, j) = rows[i][j];
  return m;
}

}  // namespace headroom::worker
