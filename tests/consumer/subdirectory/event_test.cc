// event_test.cc: the parent project's own event_test (consumer test (b)).
int main() { return 0; }
