/* pd-test-session-list.c: a session list in a real window over a real
 * database, for the session list's tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A PdSessionList in a real window reads a PdLocalSource over a database
 * written through the core store API.
 */
#define G_LOG_DOMAIN "pd-test-session-list"

#include "config.h"

#include "pd-local-source.h"
#include "pd-session-row.h"
#include "pd-test-fixtures.h"
#include "pd-test-session-list.h"
#include "pd-test-ui.h"

static gboolean
merged_at_least (gpointer data)
{
  PdSessionList *list = ((gpointer *) data)[0];
  guint wanted = GPOINTER_TO_UINT (((gpointer *) data)[1]);

  return pd_session_list_get_generation (list) >= wanted;
}

/* Waits until @list has merged its listing number @generation. */
void
pd_test_session_list_wait_generation (PdSessionList *list,
                                      guint          generation,
                                      const char    *what)
{
  gpointer data[2] = { list, GUINT_TO_POINTER (generation) };

  pd_test_wait_until (merged_at_least, data, what);
}

/* Waits for the next merged listing. */
void
pd_test_session_list_wait_listing (PdTestSessionList *f)
{
  pd_test_session_list_wait_generation (f->list, pd_session_list_get_generation (f->list) + 1,
                                        "a session listing");
}

guint
pd_test_session_list_n_items (PdTestSessionList *f)
{
  return g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (f->list)));
}

PdSessionItem *
pd_test_session_list_item_at (PdTestSessionList *f,
                              guint              position)
{
  g_autoptr(PdSessionItem) item = g_list_model_get_item (G_LIST_MODEL (pd_session_list_get_model (f->list)),
                                                         position);

  return item;   /* the model keeps it alive */
}

/* The list view's child (the list item widget) whose row shows @item, or
 * NULL when none does. */
GtkWidget *
pd_test_session_list_find_row (PdTestSessionList *f,
                               PdSessionItem     *item)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (f->list), GTK_TYPE_LIST_VIEW);
  GtkWidget *row = NULL;

  for (GtkWidget *child = gtk_widget_get_first_child (view); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *first = gtk_widget_get_first_child (child);

      if (first != NULL && PD_IS_SESSION_ROW (first) && pd_session_row_get_item (PD_SESSION_ROW (first)) == item)
        row = child;
    }
  return row;
}

static void
add_transcript (PdTestSessionList *f,
                const char        *id,
                const char        *text)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *json = g_strdup_printf ("[{\"role\":\"user\",\"content\":\"%s\"}]", text);
  g_autoptr(JsonNode) node = json_from_string (json, &error);
  PdTurn turn = { 0 };

  g_assert_no_error (error);
  turn.session_id = id;
  turn.messages = json_node_get_array (node);
  turn.status = PD_SESSION_STATUS_IDLE;
  g_assert_true (pd_session_store_save_turn (f->store, &turn, &error));
  g_assert_no_error (error);
}

/**
 * pd_test_session_list_set_up:
 * @docs_text: (nullable): a user message for the docs session's
 *   transcript, written before the markup session comes, or NULL for none
 */
void
pd_test_session_list_set_up (PdTestSessionList *f,
                             const char        *docs_text)
{
  f->dir = pd_test_make_tmp_dir ();
  f->path = g_build_filename (f->dir, "sessions.db", NULL);
  f->store = pd_test_open_store (f->path);

  f->parser = pd_test_add_session (f->store, "Fix the parser", "plandeck");
  f->docs = pd_test_add_session (f->store, "Write the docs", "claude-code");
  if (docs_text != NULL)
    add_transcript (f, f->docs, docs_text);
  f->markup = pd_test_add_session (f->store, "<b>x</b> & friends", "codex");

  f->source = PD_SOURCE (pd_local_source_new (f->path, FALSE));
  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 320, 600);
  f->list = g_object_new (PD_TYPE_SESSION_LIST, NULL);
  gtk_window_set_child (f->window, GTK_WIDGET (f->list));
  gtk_window_present (f->window);

  pd_session_list_set_source (f->list, f->source);
  pd_test_session_list_wait_listing (f);
  pd_test_flush (GTK_WIDGET (f->window));
}

void
pd_test_session_list_tear_down (PdTestSessionList *f)
{
  pd_test_destroy_window (f->window, f->list);
  pd_test_assert_finalized (g_steal_pointer (&f->source));
  pd_test_assert_finalized (g_steal_pointer (&f->store));
  g_free (f->parser);
  g_free (f->docs);
  g_free (f->markup);
  g_free (f->path);
  g_free (f->dir);
}
