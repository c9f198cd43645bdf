// faults.h: a consumer's shared library over perfcounters::perfcounters
// (tests/consumer/run links the static, position-independent archive into
// it).
#ifndef CONSUMER_FAULTS_H_
#define CONSUMER_FAULTS_H_

// The page faults (user space) taken while touching `pages` fresh pages,
// or -1 after printing why they could not be counted.
double PageFaultsOfTouching(int pages);

#endif  // CONSUMER_FAULTS_H_
