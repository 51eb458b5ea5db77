/* test-a11y-keyboard-landing.h: the a11y-keyboard test's second file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

void pd_test_a11y_keyboard_add_landing (void);

G_END_DECLS
