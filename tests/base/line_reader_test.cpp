// Lines from a real pipe: split and joined across writes, the last line
// without a newline, and no line when none was written.
#include "base/line_reader.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>

namespace holdfast::base {
namespace {

constexpr std::chrono::milliseconds kNoWait{0};
constexpr std::chrono::milliseconds kForever{-1};

TEST(LineReader, TwoLinesInOneWriteAndOneLineInTwoWritesAreEachOneLine) {
  Pipe pipe = ::holdfast::base::make_pipe("the test");
  LineReader lines(std::move(pipe.read_end));
  write_all(pipe.write_end.get(), "first\nsecond\nthi", "the pipe");
  EXPECT_EQ(lines.next(kForever), "first");
  EXPECT_EQ(lines.next(kForever), "second");
  EXPECT_EQ(lines.next(kNoWait), std::nullopt);  // "thi" is no line yet
  write_all(pipe.write_end.get(), "rd\n", "the pipe");
  EXPECT_EQ(lines.next(kForever), "third");
  EXPECT_FALSE(lines.at_end());
}

TEST(LineReader, TheLastLineWithoutANewlineComesBeforeTheEnd) {
  Pipe pipe = ::holdfast::base::make_pipe("the test");
  LineReader lines(std::move(pipe.read_end));
  write_all(pipe.write_end.get(), "done\nlast", "the pipe");
  pipe.write_end.reset();
  EXPECT_EQ(lines.next(kForever), "done");
  EXPECT_EQ(lines.next(kForever), "last");
  EXPECT_EQ(lines.next(kForever), std::nullopt);
  EXPECT_TRUE(lines.at_end());
}

TEST(LineReader, AnEmptyLineIsALine) {
  Pipe pipe = ::holdfast::base::make_pipe("the test");
  LineReader lines(std::move(pipe.read_end));
  write_all(pipe.write_end.get(), "\n", "the pipe");
  EXPECT_EQ(lines.next(kForever), "");
  EXPECT_EQ(lines.next(kNoWait), std::nullopt);
}

}  // namespace
}  // namespace holdfast::base
