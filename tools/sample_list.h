// sample_list.h: SampleList, the counted samples of one side of one metric
// (compare.h's SideStats::samples). A comparison holds two per metric, and
// most hold 1 to 3 values (gbench's default run, --benchmark_repetitions=3):
// up to kInline values are kept in the object itself, so that these need
// no heap block (a std::vector<double> of 3 takes 24 bytes plus a 32-byte
// block). It is used as a std::vector<double> is (size, empty, begin/end,
// data, [], push_back, assign), and converts to absl::Span<const double>.
// An allocation that throws leaves the list as it was.
#ifndef PERFCOUNTERS_TOOLS_SAMPLE_LIST_H_
#define PERFCOUNTERS_TOOLS_SAMPLE_LIST_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

namespace perfcounters::tools {

class SampleList {
 public:
  // Values kept without a heap block.
  static constexpr uint32_t kInline = 3;

  SampleList() = default;
  SampleList(const SampleList& other) { assign(other.begin(), other.end()); }
  SampleList(SampleList&& other) noexcept { Take(other); }
  SampleList& operator=(const SampleList& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  SampleList& operator=(SampleList&& other) noexcept {
    if (this != &other) {
      Free();
      Take(other);
    }
    return *this;
  }
  ~SampleList() { Free(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const double* data() const { return OnHeap() ? heap_ : inline_; }
  double* data() { return OnHeap() ? heap_ : inline_; }
  const double* begin() const { return data(); }
  const double* end() const { return data() + size_; }
  double* begin() { return data(); }
  double* end() { return data() + size_; }
  const double& operator[](size_t i) const { return data()[i]; }
  double& operator[](size_t i) { return data()[i]; }
  const double& front() const { return data()[0]; }
  const double& back() const { return data()[size_ - 1]; }

  void push_back(double v) {
    if (size_ == capacity_) Grow(static_cast<size_t>(capacity_) * 2);
    data()[size_++] = v;
  }

  // Replaces the values with [first, last).
  template <class It>
  void assign(It first, It last) {
    const auto n = static_cast<size_t>(std::distance(first, last));
    if (n > capacity_) {
      SampleList fresh;
      fresh.Grow(n);  // may throw: *this is untouched
      std::copy(first, last, fresh.data());
      fresh.size_ = static_cast<uint32_t>(n);
      *this = std::move(fresh);
      return;
    }
    std::copy(first, last, data());
    size_ = static_cast<uint32_t>(n);
  }

  void clear() { size_ = 0; }

  std::vector<double> ToVector() const { return {begin(), end()}; }

 private:
  bool OnHeap() const { return capacity_ > kInline; }

  // Makes room for at least `n` values (> capacity_), keeping the values.
  void Grow(size_t n) {
    const size_t cap = std::max<size_t>(n, kInline + 1);
    std::unique_ptr<double[]> block(new double[cap]);  // may throw
    std::copy(begin(), end(), block.get());
    Free();
    heap_ = block.release();
    capacity_ = static_cast<uint32_t>(cap);
  }
  void Free() {
    if (OnHeap()) delete[] heap_;
    capacity_ = kInline;
  }
  // Moves `other`'s values here (*this holds none) and empties it.
  void Take(SampleList& other) {
    size_ = other.size_;
    capacity_ = other.capacity_;
    if (other.OnHeap()) {
      heap_ = other.heap_;
    } else {
      std::copy(other.inline_, other.inline_ + other.size_, inline_);
    }
    other.size_ = 0;
    other.capacity_ = kInline;
  }

  union {
    double inline_[kInline] = {};
    double* heap_;
  };
  uint32_t size_ = 0;
  uint32_t capacity_ = kInline;
};

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_SAMPLE_LIST_H_
