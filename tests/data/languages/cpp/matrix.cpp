#include <vector>

namespace linalg {

class Matrix {
 public:
  Matrix(int rows, int cols) : rows_(rows), cols_(cols), values_(rows * cols) {}

  /** Returns the value at a row and column. */
  double valueAt(int row, int col) const { return values_[row * cols_ + col]; }

  /** Sums the values on the diagonal. */
  double trace() const;

 private:
  int rows_;
  int cols_;
  std::vector<double> values_;
};

double Matrix::trace() const {
  double total = 0;
  for (int i = 0; i < rows_ && i < cols_; ++i) {
    total += valueAt(i, i);
  }
  return total;
}

}  // namespace linalg
