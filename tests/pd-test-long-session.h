/* pd-test-long-session.h: what the long-transcript tests share: one
 * generated transcript imported into a database of its own with the tail
 * threshold lowered (64 KiB), and the Events page's walk back through its
 * timeline a page at a time, and `serve`'s answer of a path of it.
 * Shared by test-import-events-parts.c (a fixture written again and
 * again, read in parts), test-import-pages-bounded.c (thousands of small
 * plan calls) and test-import-bloated.c (a line of too many values).
 * Header-only because the test list builds one source file per test.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <libsoup/soup.h>

#include "pd-import-test.h"
#include "pd-server.h"
#include "pd-session-reads.h"

#define PD_LONG_SESSION_TOKEN "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

typedef struct
{
  char           *dir;
  char           *db_dir;
  char           *path;     /* the transcript, in <dir>/chats */
  PdSessionStore *store;
  char           *id;       /* the session the import made of it */
} PdLongSession;

/* @text written as <a new folder>/chats/@name and imported by a fresh
 * index: @import_long, as a long transcript (the threshold lowered first);
 * otherwise read whole at the import, lowered only after it.  The
 * threshold stays lowered until pd_long_session_close(). */
static inline void
pd_long_session_open (PdLongSession *f,
                      const char    *name,
                      const GString *text,
                      gboolean       import_long)
{
  g_autofree char *chats = NULL;
  g_autoptr(GError) error = NULL;
  PdImportIndexStats stats;
  PdSessionInfo *info;

  f->dir = pd_import_test_tmpdir ();
  chats = g_build_filename (f->dir, "chats", NULL);
  g_assert_cmpint (g_mkdir_with_parents (chats, 0700), ==, 0);
  f->path = g_build_filename (chats, name, NULL);
  g_assert_true (g_file_set_contents (f->path, text->str, (gssize) text->len, &error));
  g_assert_no_error (error);

  if (import_long)
    _pd_import_set_tail_limits (64 * 1024, 64 * 1024);
  f->store = pd_import_test_new_store (&f->db_dir);
  info = pd_import_test_import_fresh (f->store, f->dir, &stats);
  f->id = g_strdup (info->id);
  pd_session_info_free (info);
  _pd_import_set_tail_limits (64 * 1024, 64 * 1024);
}

static inline void
pd_long_session_close (PdLongSession *f)
{
  _pd_import_set_tail_limits (0, 0);
  g_object_unref (f->store);
  pd_test_remove_tree (f->dir);
  pd_test_remove_tree (f->db_dir);
  g_free (f->dir);
  g_free (f->db_dir);
  g_free (f->path);
  g_free (f->id);
}

/* What a real `serve` (a PdServer on loopback over @f's database)
 * answers a GET of /api/sessions/ID@suffix with the token: the body, the
 * status in *@status.  The server is stopped before it returns, so all it
 * held for the answer is let go. */
static inline GBytes *
pd_long_session_serve_get (PdLongSession *f,
                           const char    *suffix,
                           guint         *status)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *db_path = g_build_filename (f->db_dir, "sessions.db", NULL);
  g_autofree char *base = NULL;
  g_autofree char *url = NULL;
  g_autoptr(PdServer) server = pd_server_new (db_path);
  g_autoptr(SoupSession) session = soup_session_new_with_options ("timeout", 60, NULL);
  g_autoptr(SoupMessage) msg = NULL;
  GBytes *bytes;

  pd_server_set_listen (server, "127.0.0.1", 0);
  pd_server_set_token (server, PD_LONG_SESSION_TOKEN);
  g_assert_true (pd_server_start (server, &error));
  g_assert_no_error (error);
  base = pd_server_dup_base_url (server);
  url = g_strdup_printf ("%s/api/sessions/%s%s", base, f->id, suffix);

  msg = soup_message_new ("GET", url);
  soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Plandeck-Token", PD_LONG_SESSION_TOKEN);
  bytes = soup_session_send_and_read (session, msg, NULL, &error);
  g_assert_no_error (error);
  *status = soup_message_get_status (msg);
  pd_server_stop (server);
  return bytes;
}

/* Holds @page to the whole timeline's events from index @first on. */
typedef void (*PdLongSessionPageCheck) (GPtrArray *page,
                                        guint      first,
                                        gpointer   user_data);

/* Backward, as the Events page reads: the newest page of @size, then each
 * "Show Earlier Events" the page before it, until the @total events of the
 * timeline are seen; each page is held to the timeline by @check, its
 * events in order and before the page after it; the page before the first
 * is empty.  Returns how many pages there were. */
static inline guint
pd_long_session_walk_latest (PdLongSession          *f,
                             guint                   size,
                             guint                   total,
                             PdLongSessionPageCheck  check,
                             gpointer                user_data)
{
  g_autoptr(GPtrArray) past = NULL;
  g_autoptr(GError) error = NULL;
  gint64 before = -1;
  guint seen = 0;
  guint pages = 0;

  while (seen < total)
    {
      g_autoptr(GPtrArray) page = pd_session_reads_list_latest_events (f->store, f->id, before, NULL, size, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (page->len, ==, MIN (size, total - seen));
      check (page, total - seen - page->len, user_data);
      for (guint i = 1; i < page->len; i++)
        g_assert_cmpint (((PdStoredEvent *) g_ptr_array_index (page, i - 1))->seq, <,
                         ((PdStoredEvent *) g_ptr_array_index (page, i))->seq);
      if (before > 0)
        g_assert_cmpint (((PdStoredEvent *) g_ptr_array_index (page, page->len - 1))->seq, <, before);
      seen += page->len;
      before = ((PdStoredEvent *) g_ptr_array_index (page, 0))->seq;
      pages++;
    }

  past = pd_session_reads_list_latest_events (f->store, f->id, before, NULL, size, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (past->len, ==, 0);
  return pages;
}
