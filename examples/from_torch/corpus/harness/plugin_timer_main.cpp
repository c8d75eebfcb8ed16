// The timer as a program: plugin_timer_run's JSON on stdout (see plugin_timer.cpp).
#include <cstddef>
#include <cstdio>

extern "C" int plugin_timer_run(int argc, char** argv, char* json, std::size_t capacity);

int main(int argc, char** argv) {
  char json[4096];
  const int status = plugin_timer_run(argc, argv, json, sizeof json);
  if (status == 0) std::printf("%s\n", json);
  return status;
}
