// RunChild with `output`: a program's stdout is collected whole (more than a pipe holds), its
// stderr is not, and without `output` nothing is collected.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "core/child_process.h"

namespace fathom::testing {
namespace {

TEST(ChildOutput, StdoutIsCollectedWholeEvenBeyondWhatAPipeHolds) {
  std::string out;
  ChildSpec spec;
  // 300,000 lines "y": 600,000 bytes, several times a pipe's 64 KiB.
  spec.argv = {"/bin/sh", "-c", "yes | head -n 300000; echo gone >&2"};
  spec.output = &out;
  auto exit = RunChild(spec);
  ASSERT_TRUE(exit.ok()) << exit.status().message();
  EXPECT_EQ(exit->exit_code, 0);
  ASSERT_EQ(out.size(), 600000u);
  EXPECT_EQ(out.find_first_not_of("y\n"), std::string::npos);
}

TEST(ChildOutput, WhatTheChildWroteJustBeforeItEndedIsKept) {
  std::string out;
  ChildSpec spec;
  spec.argv = {"/usr/bin/printf", "a\\nb"};
  spec.output = &out;
  auto exit = RunChild(spec);
  ASSERT_TRUE(exit.ok()) << exit.status().message();
  EXPECT_EQ(exit->exit_code, 0);
  EXPECT_EQ(out, "a\nb");
}

TEST(ChildOutput, InputAndOutputFlowTogetherAndTheDeadlineHoldsWhileTheChildIsSilent) {
  // cat echoes 300,000 bytes of input: both pipes fill and drain at once.
  std::string out;
  const std::string input(300000, 'i');
  ChildSpec spec;
  spec.argv = {"/bin/cat"};
  spec.input = input;
  spec.output = &out;
  auto exit = RunChild(spec);
  ASSERT_TRUE(exit.ok()) << exit.status().message();
  EXPECT_EQ(exit->exit_code, 0);
  EXPECT_EQ(out, input);

  // A child that prints a line, then sleeps past the deadline: killed on time, its line kept.
  std::string early;
  ChildSpec slow;
  slow.argv = {"/bin/sh", "-c", "echo early; exec sleep 30"};
  slow.output = &early;
  slow.timeout_ns = 500'000'000;
  const auto start = std::chrono::steady_clock::now();
  auto killed = RunChild(slow);
  ASSERT_TRUE(killed.ok()) << killed.status().message();
  EXPECT_TRUE(killed->timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(early, "early\n");
}

TEST(ChildOutput, AProgramThatCannotStartLeavesTheOutputEmpty) {
  std::string out;
  ChildSpec spec;
  spec.argv = {"/nonexistent/program"};
  spec.output = &out;
  auto exit = RunChild(spec);
  ASSERT_TRUE(exit.ok()) << exit.status().message();
  EXPECT_FALSE(exit->started);
  EXPECT_EQ(exit->start_errno, ENOENT);
  EXPECT_EQ(out, "");
}

}  // namespace
}  // namespace fathom::testing
