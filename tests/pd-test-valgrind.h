/* pd-test-valgrind.h: RUNNING_ON_VALGRIND where valgrind's header is
 * there, else 0, for a test that keeps its run under valgrind short (the
 * CI runs the core C tests under it).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif
