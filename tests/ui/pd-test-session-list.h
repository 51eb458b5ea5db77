/* pd-test-session-list.h: a session list in a real window over a real
 * database, for the session list's tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "pd-session-item.h"
#include "pd-session-list.h"
#include "pd-session-store.h"
#include "pd-source.h"

G_BEGIN_DECLS

/* Three sessions, written through the core store API in this order:
 * "Fix the parser" (plandeck), "Write the docs" (claude-code) and
 * "<b>x</b> & friends" (codex), the last the newest. */
typedef struct
{
  char           *dir;
  char           *path;
  PdSessionStore *store;
  PdSource       *source;
  GtkWindow      *window;
  PdSessionList  *list;
  char           *parser;
  char           *docs;
  char           *markup;
} PdTestSessionList;

void           pd_test_session_list_set_up       (PdTestSessionList *f,
                                                  const char        *docs_text);
void           pd_test_session_list_tear_down    (PdTestSessionList *f);
void           pd_test_session_list_wait_generation (PdSessionList *list,
                                                     guint          generation,
                                                     const char    *what);
void           pd_test_session_list_wait_listing (PdTestSessionList *f);
guint          pd_test_session_list_n_items      (PdTestSessionList *f);
PdSessionItem *pd_test_session_list_item_at      (PdTestSessionList *f,
                                                  guint              position);
GtkWidget     *pd_test_session_list_find_row     (PdTestSessionList *f,
                                                  PdSessionItem     *item);

G_END_DECLS
