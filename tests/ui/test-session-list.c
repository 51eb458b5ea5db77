/* test-session-list.c: the sidebar's session list on a real database
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A PdSessionList in a real window reads a PdLocalSource over a database
 * written through the core store API.
 */
#define G_LOG_DOMAIN "test-session-list"

#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "pd-local-source.h"
#include "pd-remote-source.h"
#include "pd-session-item.h"
#include "pd-session-list.h"
#include "pd-session-list-private.h"
#include "pd-session-row.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-session-list.h"
#include "pd-test-ui.h"

typedef PdTestSessionList Fixture;

typedef struct
{
  Fixture    *f;
  const char *query;
  gboolean    full_text;
} QueryWait;

static gboolean
listed_for_query (gpointer data)
{
  QueryWait *wait = data;

  return g_strcmp0 (pd_session_list_get_query (wait->f->list), wait->query) == 0 &&
         !pd_session_list_get_busy (wait->f->list);
}

/* Typed text is searched after a debounce: waits for the listing of @query. */
static void
wait_for_query (Fixture    *f,
                const char *query)
{
  QueryWait wait = { f, query, FALSE };

  pd_test_wait_until (listed_for_query, &wait, query != NULL ? query : "the full listing");
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  pd_test_session_list_set_up (f, "mention the zeppelin config");
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  pd_test_session_list_tear_down (f);
}

/* --- listing and filtering --------------------------------------------- */

static void
test_session_list_lists_newest_first (Fixture       *f,
                                      gconstpointer  data)
{
  g_assert_cmpuint (pd_test_session_list_n_items (f), ==, 3);
  g_assert_true (pd_session_list_get_loaded (f->list));

  /* Most recently updated first, as the store orders them. */
  g_assert_cmpstr (pd_session_item_get_id (pd_test_session_list_item_at (f, 0)), ==, f->markup);
  g_assert_cmpstr (pd_session_item_get_id (pd_test_session_list_item_at (f, 1)), ==, f->docs);
  g_assert_cmpstr (pd_session_item_get_id (pd_test_session_list_item_at (f, 2)), ==, f->parser);

  /* Source badges name the agents. */
  g_assert_nonnull (pd_test_find_label (GTK_WIDGET (f->list), "Claude Code"));
  g_assert_nonnull (pd_test_find_label (GTK_WIDGET (f->list), "Codex"));
  g_assert_nonnull (pd_test_find_label (GTK_WIDGET (f->list), "Plandeck"));
}

static void
test_session_list_filters (Fixture       *f,
                           gconstpointer  data)
{
  GtkWidget *entry = pd_test_find_widget (GTK_WIDGET (f->list), GTK_TYPE_SEARCH_ENTRY);
  GtkWidget *toggle = pd_test_find_widget (GTK_WIDGET (f->list), GTK_TYPE_TOGGLE_BUTTON);

  g_assert_nonnull (entry);
  g_assert_nonnull (toggle);
  pd_session_list_start_search (f->list);

  /* Typed into the search entry, after the debounce. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "parser");
  wait_for_query (f, "parser");
  g_assert_cmpuint (pd_test_session_list_n_items (f), ==, 1);
  g_assert_cmpstr (pd_session_item_get_id (pd_test_session_list_item_at (f, 0)), ==, f->parser);

  /* A word only in a transcript matches with full text only. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "zeppelin");
  wait_for_query (f, "zeppelin");
  g_assert_cmpuint (pd_test_session_list_n_items (f), ==, 0);
  pd_test_flush (GTK_WIDGET (f->window));
  g_assert_true (gtk_widget_get_mapped (pd_test_find_label (GTK_WIDGET (f->list),
                                                            "No Matching Sessions")));

  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (toggle), TRUE);
  wait_for_query (f, "zeppelin");
  g_assert_cmpuint (pd_test_session_list_n_items (f), ==, 1);
  g_assert_cmpstr (pd_session_item_get_id (pd_test_session_list_item_at (f, 0)), ==, f->docs);

  /* Clearing the search lists everything again. */
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (toggle), FALSE);
  gtk_editable_set_text (GTK_EDITABLE (entry), "");
  wait_for_query (f, NULL);
  g_assert_cmpuint (pd_test_session_list_n_items (f), ==, 3);
  g_assert_null (pd_session_list_get_query (f->list));
}

/* The rows that look selected: each list item widget in the selected state. */
static guint
n_rows_selected (Fixture *f)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (f->list), GTK_TYPE_LIST_VIEW);
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (view); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (gtk_widget_get_child_visible (child) && (gtk_widget_get_state_flags (child) & GTK_STATE_FLAG_SELECTED))
      n++;
  return n;
}

/* A search leaves the open session open: the first match opened itself as
 * the list filtered, and Escape opened yet another (tried as a new user
 * would).  Escape lists all again with the open session's row selected. */
static void
test_session_list_search_keeps_open (Fixture       *f,
                                     gconstpointer  data)
{
  GtkWidget *entry = pd_test_find_widget (GTK_WIDGET (f->list), GTK_TYPE_SEARCH_ENTRY);

  g_assert_true (pd_session_list_select (f->list, f->docs));
  pd_session_list_start_search (f->list);

  /* "parser" matches another session alone: it is listed, not opened. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "parser");
  wait_for_query (f, "parser");
  pd_test_flush (GTK_WIDGET (f->window));
  g_assert_cmpuint (pd_test_session_list_n_items (f), ==, 1);
  g_assert_cmpstr (pd_session_item_get_id (pd_session_list_get_selected_item (f->list)), ==, f->docs);
  g_assert_cmpuint (n_rows_selected (f), ==, 0);

  /* Another word that matches nothing, then one that matches it again. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "nothing matches this");
  wait_for_query (f, "nothing matches this");
  g_assert_cmpuint (pd_test_session_list_n_items (f), ==, 0);
  g_assert_cmpstr (pd_session_item_get_id (pd_session_list_get_selected_item (f->list)), ==, f->docs);
  gtk_editable_set_text (GTK_EDITABLE (entry), "docs");
  wait_for_query (f, "docs");
  pd_test_flush (GTK_WIDGET (f->window));
  g_assert_cmpstr (pd_session_item_get_id (pd_session_list_get_selected_item (f->list)), ==, f->docs);
  g_assert_cmpuint (n_rows_selected (f), ==, 1);
  gtk_editable_set_text (GTK_EDITABLE (entry), "parser");
  wait_for_query (f, "parser");

  /* Escape: every session listed, the open one selected. */
  g_signal_emit_by_name (entry, "stop-search");
  wait_for_query (f, NULL);
  pd_test_flush (GTK_WIDGET (f->window));
  g_assert_cmpuint (pd_test_session_list_n_items (f), ==, 3);
  g_assert_cmpstr (pd_session_item_get_id (pd_session_list_get_selected_item (f->list)), ==, f->docs);
  g_assert_cmpuint (n_rows_selected (f), ==, 1);

  /* Picking a match opens it. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "parser");
  wait_for_query (f, "parser");
  g_assert_true (pd_session_list_select (f->list, f->parser));
  gtk_editable_set_text (GTK_EDITABLE (entry), "");
  wait_for_query (f, NULL);
  g_assert_cmpstr (pd_session_item_get_id (pd_session_list_get_selected_item (f->list)), ==, f->parser);
}

static void
test_session_list_late_reply_dropped (Fixture       *f,
                                      gconstpointer  data)
{
  guint before = pd_session_list_get_generation (f->list);

  /* Two requests in a row: only the second one's answer is merged. */
  pd_session_list_set_query (f->list, "parser", FALSE);
  pd_session_list_set_query (f->list, "docs", FALSE);
  pd_test_session_list_wait_listing (f);

  g_assert_cmpuint (pd_session_list_get_generation (f->list), ==, before + 1);
  g_assert_cmpuint (pd_test_session_list_n_items (f), ==, 1);
  g_assert_cmpstr (pd_session_item_get_id (pd_test_session_list_item_at (f, 0)), ==, f->docs);

  /* And nothing else arrives later. */
  for (guint i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);
  g_usleep (50 * 1000);
  for (guint i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpuint (pd_session_list_get_generation (f->list), ==, before + 1);
  g_assert_cmpuint (pd_test_session_list_n_items (f), ==, 1);
}

/* --- merging keeps items and selection ---------------------------------- */

static void
count_notify (guint *counter)
{
  (*counter)++;
}

static void
test_session_list_merge_keeps_items (Fixture       *f,
                                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  PdSessionItem *before[3];
  PdSessionItem *parser_item;
  PdSessionItem *markup_item;
  guint position;
  guint title_notifies = 0;

  for (guint i = 0; i < 3; i++)
    before[i] = pd_test_session_list_item_at (f, i);

  g_assert_true (pd_session_list_select (f->list, f->docs));
  g_assert_cmpstr (pd_session_item_get_id (pd_session_list_get_selected_item (f->list)), ==, f->docs);
  markup_item = pd_session_list_model_find (pd_session_list_get_model (f->list), f->markup, NULL);
  g_signal_connect_swapped (markup_item, "notify", G_CALLBACK (count_notify), &title_notifies);

  /* Nothing changed: the same objects in the same places. */
  pd_session_list_refresh (f->list);
  pd_test_session_list_wait_listing (f);
  for (guint i = 0; i < 3; i++)
    g_assert_true (pd_test_session_list_item_at (f, i) == before[i]);

  /* A rename changes that item in place. */
  g_assert_true (pd_session_store_rename (f->store, f->parser, "Parser fixes", &error));
  g_assert_no_error (error);
  pd_session_list_refresh (f->list);
  pd_test_session_list_wait_listing (f);
  parser_item = pd_session_list_model_find (pd_session_list_get_model (f->list), f->parser, NULL);
  g_assert_nonnull (parser_item);
  g_assert_cmpstr (pd_session_item_get_title (parser_item), ==, "Parser fixes");
  for (guint i = 0; i < 3; i++)
    g_assert_true (pd_test_session_list_item_at (f, i) == before[i]);
  /* The unchanged item was not notified at all. */
  g_assert_cmpuint (title_notifies, ==, 0);
  g_assert_cmpstr (pd_session_item_get_id (pd_session_list_get_selected_item (f->list)), ==, f->docs);

  /* Pinning moves the same item to the top; the selection stays. */
  g_assert_true (pd_session_store_set_pinned (f->store, f->markup, TRUE, &error));
  g_assert_no_error (error);
  pd_session_list_refresh (f->list);
  pd_test_session_list_wait_listing (f);
  g_assert_true (pd_test_session_list_item_at (f, 0) == markup_item);
  g_assert_true (pd_session_item_get_pinned (markup_item));
  g_assert_cmpstr (pd_session_item_get_id (pd_session_list_get_selected_item (f->list)), ==, f->docs);

  /* A deleted session goes; the others stay the same objects. */
  g_assert_true (pd_session_store_delete (f->store, f->parser, &error));
  g_assert_no_error (error);
  pd_session_list_refresh (f->list);
  pd_test_session_list_wait_listing (f);
  g_assert_cmpuint (pd_test_session_list_n_items (f), ==, 2);
  g_assert_null (pd_session_list_model_find (pd_session_list_get_model (f->list), f->parser, NULL));
  g_assert_true (pd_session_list_model_find (pd_session_list_get_model (f->list), f->markup, &position) == markup_item);
  g_assert_cmpstr (pd_session_item_get_id (pd_session_list_get_selected_item (f->list)), ==, f->docs);

  /* A new session is inserted where the listing puts it. */
  g_free (f->parser);
  f->parser = pd_test_add_session (f->store, "A brand new run", "opencode");
  pd_session_list_refresh (f->list);
  pd_test_session_list_wait_listing (f);
  g_assert_cmpuint (pd_test_session_list_n_items (f), ==, 3);
  g_assert_true (pd_test_session_list_item_at (f, 0) == markup_item);   /* still pinned first */
  g_assert_cmpstr (pd_session_item_get_id (pd_test_session_list_item_at (f, 1)), ==, f->parser);
  g_assert_cmpstr (pd_session_item_get_source_label (pd_test_session_list_item_at (f, 1)), ==, "OpenCode");
  g_assert_cmpstr (pd_session_item_get_id (pd_session_list_get_selected_item (f->list)), ==, f->docs);
}

/* A change made by another writer arrives through the source's watch. */
static void
test_session_list_follows_other_writers (Fixture       *f,
                                         gconstpointer  data)
{
  g_autofree char *id = NULL;

  pd_local_source_watch (PD_LOCAL_SOURCE (f->source), 50);
  /* The first look records the data version; let it happen. */
  for (guint i = 0; i < 20; i++)
    {
      g_usleep (10 * 1000);
      while (g_main_context_pending (NULL))
        g_main_context_iteration (NULL, FALSE);
    }

  id = pd_test_add_session (f->store, "Started from the command line", "plandeck");
  pd_test_session_list_wait_listing (f);
  g_assert_nonnull (pd_session_list_model_find (pd_session_list_get_model (f->list), id, NULL));
  pd_local_source_watch (PD_LOCAL_SOURCE (f->source), 0);
}

/* --- a selected row is brought into view ---------------------------------- */

static gboolean
is_row_of (GtkWidget     *widget,
           gconstpointer  id)
{
  PdSessionItem *item;

  if (!PD_IS_SESSION_ROW (widget) || !gtk_widget_get_mapped (widget))
    return FALSE;
  item = pd_session_row_get_item (PD_SESSION_ROW (widget));
  return item != NULL && g_strcmp0 (pd_session_item_get_id (item), id) == 0;
}

/* Whether the row of session @id is drawn whole inside the list's viewport. */
static gboolean
row_in_view (Fixture    *f,
             const char *id)
{
  GtkWidget *scroller = pd_test_find_widget (GTK_WIDGET (f->list), GTK_TYPE_SCROLLED_WINDOW);
  GtkWidget *row = pd_test_find_first (GTK_WIDGET (f->list), is_row_of, id);
  graphene_rect_t bounds;

  if (row == NULL || !gtk_widget_compute_bounds (row, scroller, &bounds))
    return FALSE;
  return bounds.origin.y >= 0 && bounds.origin.y + bounds.size.height <= gtk_widget_get_height (scroller);
}

static gboolean
scrolled_down (gpointer data)
{
  GtkAdjustment *adjustment = data;

  return gtk_adjustment_get_value (adjustment) > 0;
}

/* Tried as a new user would: scrolled down the list (to delete an old
 * session), then a new session; selected, it sat above what was shown. */
static void
test_session_list_select_scrolls (Fixture       *f,
                                  gconstpointer  data)
{
  GtkWidget *scroller = pd_test_find_widget (GTK_WIDGET (f->list), GTK_TYPE_SCROLLED_WINDOW);
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  g_autofree char *id = NULL;

  for (guint i = 0; i < 40; i++)
    {
      g_autofree char *title = g_strdup_printf ("Older session %u", i + 1);

      g_free (pd_test_add_session (f->store, title, "plandeck"));
    }
  pd_session_list_refresh (f->list);
  pd_test_session_list_wait_listing (f);
  pd_test_flush (GTK_WIDGET (f->window));
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
  pd_test_wait_until (scrolled_down, adjustment, "the list to scroll down");
  pd_test_flush (GTK_WIDGET (f->window));

  id = pd_test_add_session (f->store, "A new session", "plandeck");
  pd_session_list_refresh (f->list);
  pd_test_session_list_wait_listing (f);
  g_assert_false (row_in_view (f, id));
  g_assert_true (pd_session_list_select (f->list, id));
  pd_test_flush (GTK_WIDGET (f->window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (f->window));
  g_assert_true (row_in_view (f, id));
}

/* --- the row menu --------------------------------------------------------- */

static void
test_session_list_menu_pins_and_renames (Fixture       *f,
                                         gconstpointer  data)
{
  PdSessionItem *parser = pd_session_list_model_find (pd_session_list_get_model (f->list), f->parser, NULL);
  GtkWidget *popover;
  AdwMessageDialog *dialog;
  GtkEditable *entry;

  g_assert_false (pd_session_item_get_pinned (parser));

  /* Pin: the menu says so, and the session moves to the top. */
  pd_session_list_show_menu (f->list, parser);
  popover = pd_test_find_widget (GTK_WIDGET (f->list), GTK_TYPE_POPOVER_MENU);
  g_assert_nonnull (popover);
  g_assert_true (gtk_widget_get_visible (popover));
  g_assert_nonnull (pd_test_find_label (popover, "Pin"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->list), "session.toggle-pin", NULL));
  pd_test_session_list_wait_listing (f);
  g_assert_true (pd_session_item_get_pinned (parser));
  g_assert_true (pd_test_session_list_item_at (f, 0) == parser);

  /* Now it offers Unpin. */
  gtk_popover_popdown (GTK_POPOVER (popover));
  pd_session_list_show_menu (f->list, parser);
  g_assert_nonnull (pd_test_find_label (popover, "Unpin"));
  gtk_popover_popdown (GTK_POPOVER (popover));

  /* Rename through the dialog; the text is kept as typed. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->list), "session.rename", NULL));
  dialog = ADW_MESSAGE_DIALOG (pd_test_find_toplevel (ADW_TYPE_MESSAGE_DIALOG));
  g_assert_nonnull (dialog);
  entry = GTK_EDITABLE (adw_message_dialog_get_extra_child (dialog));
  g_assert_cmpstr (gtk_editable_get_text (entry), ==, "Fix the parser");
  gtk_editable_set_text (entry, "Parser <fixes> & more");
  adw_message_dialog_response (dialog, "rename");
  pd_test_destroy_window (dialog, NULL);
  pd_test_session_list_wait_listing (f);
  g_assert_cmpstr (pd_session_item_get_title (parser), ==, "Parser <fixes> & more");
  g_assert_true (pd_test_session_list_item_at (f, 0) == parser);
}

/* --- plain text ---------------------------------------------------------- */

static void
test_session_list_plain_text (Fixture       *f,
                              gconstpointer  data)
{
  GtkWidget *label = pd_test_find_label (GTK_WIDGET (f->list), "<b>x</b> & friends");

  g_assert_nonnull (label);
  g_assert_false (gtk_label_get_use_markup (GTK_LABEL (label)));
  g_assert_true (gtk_widget_get_mapped (label));
}


/* --- anyone's text ------------------------------------------------------- */

/* Whether any label under @root holds a bidi control as it is (not shown
 * as "<U+202E>") or a C0 control. */
static gboolean
holds_raw_controls (GtkWidget *root)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();

  pd_test_collect (root, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    {
      const char *text = gtk_label_get_text (g_ptr_array_index (labels, i));

      if (strstr (text, "\xe2\x80\xae") != NULL || strstr (text, "\xe2\x80\xac") != NULL)
        return TRUE;
      for (const char *p = text; *p != '\0'; p++)
        if ((guchar) *p < 0x20 || *p == 0x7f)
          return TRUE;
    }
  return FALSE;
}

/* Titles and agents' names from elsewhere (an endpoint) as a session row
 * shows them: "\u202eevil.exe\u202c gnp.md" read "gnp.md exe.live", an
 * agent named "<b>src</b>\u202e" ran into the text after it, controls
 * were hex boxes, and a 300,000-character title widened the row past the
 * sidebar (tried as an attacker would).  Each is shown on one line, its
 * bidi controls visible, isolated, cut, and the row keeps its width. */
static void
test_session_list_hostile_text (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *long_title = g_strnfill (300000, 'A');
  g_autofree char *spoof = pd_test_add_session (f->store, "\xe2\x80\xae" "evil.exe\xe2\x80\xac gnp.md", "plandeck");
  g_autofree char *agent = pd_test_add_session (f->store, "Agent spoof", "<b>src</b>\xe2\x80\xae");
  g_autofree char *controls = pd_test_add_session (f->store, "\x01\x1b[31m\x7f/../../etc/passwd", "plandeck");
  g_autofree char *line = pd_test_add_session (f->store, "line1\nline2\rline3", "plandeck");
  g_autofree char *longest = pd_test_add_session (f->store, long_title, "plandeck");
  GtkWidget *label;
  int natural = 0;

  pd_session_list_refresh (f->list);
  pd_test_session_list_wait_listing (f);
  pd_test_flush (GTK_WIDGET (f->window));

  label = pd_test_find_label (GTK_WIDGET (f->list), "<U+202E>evil.exe<U+202C> gnp.md");
  g_assert_nonnull (label);
  g_assert_true (g_str_has_prefix (gtk_label_get_text (GTK_LABEL (label)), "\xe2\x81\xa8"));
  g_assert_nonnull (pd_test_find_label (GTK_WIDGET (f->list), "<b>src</b><U+202E>"));
  g_assert_nonnull (pd_test_find_label (GTK_WIDGET (f->list), "  [31m /../../etc/passwd"));
  g_assert_nonnull (pd_test_find_label (GTK_WIDGET (f->list), "line1 line2 line3"));
  g_assert_false (holds_raw_controls (GTK_WIDGET (f->list)));

  label = pd_test_find_label_containing (GTK_WIDGET (f->list), "AAAAAAAAAA");
  g_assert_nonnull (label);
  g_assert_cmpuint (g_utf8_strlen (gtk_label_get_text (GTK_LABEL (label)), -1), <, 300);
  gtk_widget_measure (GTK_WIDGET (f->list), GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
  g_assert_cmpint (natural, <=, 600);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->list)), <=, gtk_widget_get_width (GTK_WIDGET (f->window)));
}

/* --- the title's tooltip ------------------------------------------------- */

/* What the title's tooltip query answers, as GTK asks it on hover. */
static gboolean
title_tooltip_shown (GtkWidget *title)
{
  g_autoptr(GtkTooltip) tooltip = g_object_new (GTK_TYPE_TOOLTIP, NULL);
  gboolean shown = FALSE;

  g_signal_emit_by_name (title, "query-tooltip", 4, 4, FALSE, tooltip, &shown);
  return shown;
}

/* The title's tooltip only for a title the row cuts, and never over the
 * row's open context menu (it showed for every row and covered the menu,
 * tried as a new user would). */
static void
test_session_list_title_tooltip (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *id = pd_test_add_session (f->store, "Move every preference of the old INI file to GSettings and "
                                                       "keep the migration for a release", "plandeck");
  PdSessionItem *item;
  GtkWidget *whole;
  GtkWidget *cut;
  GtkWidget *popover;

  pd_session_list_refresh (f->list);
  pd_test_session_list_wait_listing (f);
  pd_test_flush (GTK_WIDGET (f->window));
  whole = pd_test_find_label (GTK_WIDGET (f->list), "Fix the parser");
  cut = pd_test_find_label (GTK_WIDGET (f->list), "Move every preference of the old INI file to GSettings and "
                                                  "keep the migration for a release");
  g_assert_nonnull (whole);
  g_assert_nonnull (cut);
  g_assert_null (gtk_widget_get_tooltip_text (whole));
  g_assert_false (title_tooltip_shown (whole));
  g_assert_true (title_tooltip_shown (cut));

  item = pd_session_list_model_find (pd_session_list_get_model (f->list), id, NULL);
  pd_session_list_show_menu (f->list, item);
  popover = pd_test_find_widget (GTK_WIDGET (f->list), GTK_TYPE_POPOVER_MENU);
  g_assert_true (gtk_widget_get_visible (popover));
  g_assert_false (title_tooltip_shown (cut));
  gtk_popover_popdown (GTK_POPOVER (popover));
  g_assert_true (title_tooltip_shown (cut));
}

static gboolean
menu_shown (gpointer data)
{
  GtkWidget *popover = pd_test_find_widget (GTK_WIDGET (data), GTK_TYPE_POPOVER_MENU);

  return popover != NULL && gtk_widget_get_mapped (popover);
}

/* A right click (a real one, through the X server) on a row, its menu
 * closed: the row is drawn as before, not pressed, and the keyboard focus
 * is on it.  It stayed shaded as if still pressed, until another click
 * (tried as a new user would): the row's press began, the menu took its
 * release. */
static void
test_session_list_menu_leaves_row (Fixture       *f,
                                   gconstpointer  data)
{
  GtkWidget *title = pd_test_find_label (GTK_WIDGET (f->list), "Fix the parser");
  GtkWidget *row = title != NULL ? gtk_widget_get_ancestor (title, PD_TYPE_SESSION_ROW) : NULL;

  g_assert_nonnull (row);
  if (!pd_test_x11_click (row, 40, gtk_widget_get_height (row) / 2.0, 3))
    {
      g_test_skip ("needs xdotool and an X server (xvfb-run) for a real right click");
      return;
    }
  pd_test_wait_until (menu_shown, f->list, "the row's menu");
  gtk_popover_popdown (GTK_POPOVER (pd_test_find_widget (GTK_WIDGET (f->list), GTK_TYPE_POPOVER_MENU)));
  pd_test_flush (GTK_WIDGET (f->window));
  g_assert_false (gtk_widget_get_state_flags (gtk_widget_get_parent (row)) & GTK_STATE_FLAG_ACTIVE);
  g_assert_false (gtk_widget_get_state_flags (row) & GTK_STATE_FLAG_ACTIVE);
  g_assert_true (gtk_widget_has_focus (gtk_widget_get_parent (row)));
}

static gboolean
is_chip (GtkWidget     *widget,
         gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "source-badge") &&
         gtk_widget_get_mapped (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), data) != NULL;
}

/* An agent's chip shows its whole name at the sidebar's width in a window
 * of the default size ("Claude C…" beside the time and the steps, tried as
 * a new user would); only an endpoint's name too long for a chip is cut,
 * and says itself whole in its tooltip. */
static void
test_session_list_chips_whole (Fixture       *f,
                               gconstpointer  data)
{
  const char *agents[] = { "claude-code", "claude-desktop", "gemini", "qwen", "kilo-cli",
                           "An agent of a very long name, longer than a chip" };
  const char *shown[] = { "Claude Code", "Claude desktop app", "Gemini CLI", "Qwen Code", "Kilo CLI", "An agent of a" };
  g_autoptr(PdPlanState) plan = pd_test_sample_plan (1);

  for (guint i = 0; i < G_N_ELEMENTS (agents); i++)
    {
      g_autofree char *id = pd_test_add_session (f->store, "Refactor the settings dialog into pages of their own",
                                                 agents[i]);

      pd_test_save_plan (f->store, id, plan, PD_SESSION_STATUS_IDLE);
    }
  gtk_window_set_default_size (f->window, 280, 900);
  pd_session_list_refresh (f->list);
  pd_test_session_list_wait_listing (f);
  pd_test_flush (GTK_WIDGET (f->window));
  for (guint i = 0; i < G_N_ELEMENTS (agents); i++)
    {
      GtkWidget *chip = pd_test_find_first (GTK_WIDGET (f->list), is_chip, shown[i]);
      gboolean last = i == G_N_ELEMENTS (agents) - 1;

      g_assert_nonnull (chip);
      g_test_message ("%s: %d px, %s", shown[i], gtk_widget_get_width (chip),
                      pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (chip))) ? "cut" : "whole");
      g_assert_true (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (chip))) == last);
      if (last)
        g_assert_cmpstr (gtk_widget_get_tooltip_text (chip), ==, "An agent of a very long name, longer than a chip");
      else
        g_assert_null (gtk_widget_get_tooltip_text (chip));
    }
}

/* --- a long listing arrives in pages -------------------------------------- */

#define LONG_LISTING 650u

typedef struct
{
  PdSessionList *list;
  guint          at_first_frame;   /* items listed when the first page was drawn */
  gboolean       drawn;
} FirstFrame;

static void
on_long_after_paint (GdkFrameClock *clock,
                     FirstFrame    *first)
{
  if (first->drawn || !pd_session_list_get_loaded (first->list))
    return;

  first->drawn = TRUE;
  first->at_first_frame = g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (first->list)));
}

static gboolean
list_settled (gpointer data)
{
  return !pd_session_list_get_busy (data);
}

/* The model lists exactly what the store lists, in its order, each once. */
static void
assert_lists_store (PdSessionList  *list,
                    PdSessionStore *store)
{
  GListModel *model = G_LIST_MODEL (pd_session_list_get_model (list));
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  guint total = 0;
  guint position = 0;

  for (guint offset = 0; offset == 0 || offset < total; offset += PD_SESSION_LIST_MAX_LIMIT)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) page = pd_session_store_list (store, NULL, FALSE, offset,
                                                         PD_SESSION_LIST_MAX_LIMIT, &total, &error);

      g_assert_no_error (error);
      for (guint i = 0; i < page->len; i++, position++)
        {
          const PdSessionInfo *info = g_ptr_array_index (page, i);
          g_autoptr(PdSessionItem) item = g_list_model_get_item (model, position);

          g_assert_nonnull (item);
          g_assert_cmpstr (pd_session_item_get_id (item), ==, info->id);
          g_assert_true (g_hash_table_add (seen, (gpointer) pd_session_item_get_id (item)));
        }
    }
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, total);
}

/* A listing longer than a page: the first frame shows the first page
 * without waiting for the rest, the rest arrives after it, and a change
 * in the middle of the arrival (a session moved to the top, one deleted,
 * one added) leaves the list exactly as the store has it. */
static void
test_session_list_long_listing_pages (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "sessions.db", NULL);
  g_autoptr(PdSessionStore) store = pd_test_open_store (path);
  g_autoptr(PdSource) source = NULL;
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *added = NULL;
  FirstFrame first = { 0 };
  GtkWindow *window;
  PdSessionList *list;

  for (guint i = 0; i < LONG_LISTING; i++)
    {
      g_autofree char *task = g_strdup_printf ("Session %03u", i);

      g_ptr_array_add (ids, pd_test_add_session (store, task, "plandeck"));
    }

  source = PD_SOURCE (pd_local_source_new (path, FALSE));
  window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 320, 600);
  list = g_object_new (PD_TYPE_SESSION_LIST, NULL);
  first.list = list;
  gtk_window_set_child (window, GTK_WIDGET (list));
  gtk_window_present (window);
  pd_test_flush (GTK_WIDGET (window));
  g_signal_connect (gtk_widget_get_frame_clock (GTK_WIDGET (window)), "after-paint",
                    G_CALLBACK (on_long_after_paint), &first);

  pd_session_list_set_source (list, source);
  pd_test_session_list_wait_generation (list, 1, "the whole listing");

  /* The first frame drew a page, not the whole listing. */
  g_assert_true (first.drawn);
  g_assert_cmpuint (first.at_first_frame, >, 0);
  g_assert_cmpuint (first.at_first_frame, <, LONG_LISTING);
  assert_lists_store (list, store);

  /* Read again from the top; while the pages arrive, the oldest session is
   * pinned, one in the middle deleted and a new one added. */
  pd_session_list_set_query (list, "Session", FALSE);
  pd_session_list_set_query (list, NULL, FALSE);
  g_assert_true (pd_session_store_set_pinned (store, g_ptr_array_index (ids, 0), TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (pd_session_store_delete (store, g_ptr_array_index (ids, LONG_LISTING / 2), &error));
  g_assert_no_error (error);
  added = pd_test_add_session (store, "Started meanwhile", "codex");
  pd_session_list_refresh (list);
  pd_test_wait_until (list_settled, list, "the listing after the changes");
  assert_lists_store (list, store);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (list))), ==, LONG_LISTING);

  /* A session moved from deep in the list to the top by a refresh that
   * reads only the top: still listed once. */
  g_assert_true (pd_session_store_set_pinned (store, g_ptr_array_index (ids, 10), TRUE, &error));
  g_assert_no_error (error);
  pd_session_list_refresh (list);
  pd_test_wait_until (list_settled, list, "the listing after a pin");
  assert_lists_store (list, store);

  pd_test_destroy_window (window, list);
}

static void
pd_test_count_notify (guint *count)
{
  (*count)++;
}

/* --- before the first answer ------------------------------------------------ */

/* An endpoint on loopback whose session list is held until the test lets
 * it answer: a slow server, or one far away. */
typedef struct
{
  SoupServer *server;
  char       *url;
  GPtrArray  *held;
} SlowEndpoint;

static void
slow_handler (SoupServer        *server,
              SoupServerMessage *msg,
              const char        *path,
              GHashTable        *query,
              gpointer           user_data)
{
  SlowEndpoint *endpoint = user_data;

  if (g_str_has_prefix (path, "/api/sessions"))
    {
      soup_server_message_pause (msg);
      g_ptr_array_add (endpoint->held, g_object_ref (msg));
      return;
    }
  soup_server_message_set_status (msg, 404, NULL);
}

static void
slow_endpoint_start (SlowEndpoint *endpoint)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketAddress) local = NULL;
  g_autoptr(GSocketAddress) loopback = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  GSList *listeners;

  endpoint->held = g_ptr_array_new_with_free_func (g_object_unref);
  endpoint->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (endpoint->server, NULL, slow_handler, endpoint, NULL);
  soup_server_listen (endpoint->server, loopback, 0, &error);
  g_assert_no_error (error);
  listeners = soup_server_get_listeners (endpoint->server);
  local = g_socket_get_local_address (listeners->data, &error);
  g_assert_no_error (error);
  g_slist_free (listeners);
  endpoint->url = g_strdup_printf ("http://127.0.0.1:%u",
                                   g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local)));
}

/* Answers the held requests, all alike. */
static void
slow_endpoint_answer (SlowEndpoint *endpoint,
                      guint         status,
                      const char   *body)
{
  for (guint i = 0; i < endpoint->held->len; i++)
    {
      SoupServerMessage *msg = g_ptr_array_index (endpoint->held, i);

      soup_server_message_set_status (msg, status, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, body, strlen (body));
      soup_server_message_unpause (msg);
    }
  g_ptr_array_set_size (endpoint->held, 0);
}

static void
slow_endpoint_stop (SlowEndpoint *endpoint)
{
  slow_endpoint_answer (endpoint, 503, "{}");
  g_ptr_array_unref (endpoint->held);
  soup_server_disconnect (endpoint->server);
  g_clear_object (&endpoint->server);
  g_free (endpoint->url);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static gboolean
request_held (gpointer data)
{
  SlowEndpoint *endpoint = data;

  return endpoint->held->len > 0;
}

static gboolean
list_loaded (gpointer data)
{
  return pd_session_list_get_loaded (data);
}

typedef struct
{
  PdSessionList *list;
  guint          failures;
} FailWait;

static void
on_load_failed (PdSessionList *list,
                const GError  *error,
                FailWait      *wait)
{
  wait->failures++;
}

static gboolean
load_failed (gpointer data)
{
  return ((FailWait *) data)->failures > 0;
}

static gboolean
says_no_sessions (PdSessionList *list)
{
  GtkWidget *label = pd_test_find_label (GTK_WIDGET (list), "No Sessions");

  return label != NULL && gtk_widget_get_mapped (label);
}

static gboolean
spins (PdSessionList *list)
{
  GtkWidget *spinner = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_SPINNER);

  return spinner != NULL && gtk_widget_get_mapped (spinner) && gtk_spinner_get_spinning (GTK_SPINNER (spinner));
}

/* Tried as a new user would, with a remote endpoint: the sidebar said "No
 * Sessions" before its first listing came back.  It shows that it is
 * loading until the source answers; "No Sessions" only when the answer is
 * an empty list, and no claim at all when the source could not answer. */
static void
test_session_list_loading (void)
{
  SlowEndpoint endpoint = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PdRemoteSource) source = NULL;
  FailWait failed = { 0 };
  GtkWindow *window;
  PdSessionList *list;

  slow_endpoint_start (&endpoint);
  source = pd_remote_source_new (endpoint.url, NULL, &error);
  g_assert_no_error (error);

  window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 320, 600);
  list = g_object_new (PD_TYPE_SESSION_LIST, NULL);
  gtk_window_set_child (window, GTK_WIDGET (list));
  gtk_window_present (window);
  pd_session_list_set_source (list, PD_SOURCE (source));

  /* Asked, not answered: loading, not empty. */
  pd_test_wait_until (request_held, &endpoint, "the endpoint to be asked for the sessions");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_false (pd_session_list_get_loaded (list));
  g_assert_false (says_no_sessions (list));
  g_assert_true (spins (list));

  /* Answered with none: now it says so. */
  slow_endpoint_answer (&endpoint, 200, "[]");
  pd_test_wait_until (list_loaded, list, "the empty listing");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (says_no_sessions (list));
  g_assert_false (spins (list));

  /* Another source that fails its first answer: it claims nothing. */
  g_signal_connect (list, "load-failed", G_CALLBACK (on_load_failed), &failed);
  g_clear_object (&source);
  source = pd_remote_source_new (endpoint.url, NULL, &error);
  g_assert_no_error (error);
  pd_session_list_set_source (list, PD_SOURCE (source));
  pd_test_wait_until (request_held, &endpoint, "the second endpoint to be asked");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_false (says_no_sessions (list));
  g_assert_true (spins (list));
  slow_endpoint_answer (&endpoint, 503, "{\"error\":\"starting\"}");
  pd_test_wait_until (load_failed, &failed, "the failed listing");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_false (pd_session_list_get_loaded (list));
  g_assert_false (says_no_sessions (list));
  g_assert_false (spins (list));

  pd_session_list_set_source (list, NULL);
  pd_test_destroy_window (window, list);
  pd_test_assert_finalized (g_steal_pointer (&source));
  slow_endpoint_stop (&endpoint);
}

/* --- status icons --------------------------------------------------------- */

/* An idle session is not shown as paused: a finished plan gets a tick, any
 * other idle session a plain dot, and the icon follows the plan (tried as a
 * new user would: every finished run looked paused). */
static void
test_status_icons (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  PdSessionInfo info = { .id = (char *) "icons", .task = (char *) "Icons", .source = (char *) "plandeck",
                         .status = PD_SESSION_STATUS_IDLE, .plan_total = 4, .plan_done = 3 };
  g_autoptr(PdSessionItem) item = pd_session_item_new (&info, now);
  guint notified = 0;

  /* Steps left, unchanged since 1970: stalled, said by its own glyph. */
  g_assert_cmpstr (pd_session_item_get_status_label (item), ==, "Stalled");
  g_assert_cmpstr (pd_session_item_get_status_icon (item), ==, "preferences-system-time-symbolic");
  g_signal_connect_swapped (item, "notify::status-icon", G_CALLBACK (pd_test_count_notify), &notified);
  info.plan_done = 4;
  pd_session_item_update (item, &info, now);
  g_assert_cmpstr (pd_session_item_get_status_icon (item), ==, "object-select-symbolic");
  g_assert_cmpuint (notified, ==, 1);
  info.status = PD_SESSION_STATUS_RUNNING;
  pd_session_item_update (item, &info, now);
  g_assert_cmpstr (pd_session_item_get_status_icon (item), ==, "media-playback-start-symbolic");
  info.status = PD_SESSION_STATUS_IDLE;
  info.plan_total = info.plan_done = 0;
  pd_session_item_update (item, &info, now);
  g_assert_cmpstr (pd_session_item_get_status_icon (item), ==, "media-record-symbolic");

  /* Another agent's session written just now with steps left: "Working",
   * as `sessions list` and its Overview card say; its row said "Idle"
   * (tried as a new user would).  Interrupted is not the dot of idle. */
  info.source = (char *) "codex";
  info.plan_total = 4;
  info.plan_done = 1;
  info.updated_at = g_date_time_to_unix (now) * G_USEC_PER_SEC;
  pd_session_item_update (item, &info, now);
  g_assert_cmpstr (pd_session_item_get_status_label (item), ==, "Working");
  g_assert_cmpstr (pd_session_item_get_status_icon (item), ==, "media-playback-start-symbolic");
  g_assert_true (pd_session_item_get_working (item));
  info.status = PD_SESSION_STATUS_INTERRUPTED;
  pd_session_item_update (item, &info, now);
  g_assert_cmpstr (pd_session_item_get_status_label (item), ==, "Interrupted");
  g_assert_cmpstr (pd_session_item_get_status_icon (item), ==, "media-playback-stop-symbolic");
  /* An hour later, written no more: stalled, said at the next tick, as
   * `sessions list`, its Overview card and an export say (it said "Idle",
   * tried as a new user would, nu15). */
  info.status = PD_SESSION_STATUS_IDLE;
  pd_session_item_update (item, &info, now);
  g_assert_cmpstr (pd_session_item_get_status_label (item), ==, "Working");
  notified = 0;
  {
    g_autoptr(GDateTime) later = g_date_time_add_hours (now, 1);

    pd_session_item_update_time (item, later);
  }
  g_assert_cmpstr (pd_session_item_get_status_label (item), ==, "Stalled");
  /* Its own glyph, told to the row: Stalled and Idle were the same grey
   * dot (nu21 #10). */
  g_assert_cmpstr (pd_session_item_get_status_icon (item), ==, "preferences-system-time-symbolic");
  g_assert_cmpuint (notified, ==, 2);   /* no longer working, and stalled */
  /* Its steps all done: at rest, no longer stalled — "Done", as its tick,
   * its card and `sessions list` say (a screen reader heard "Idle", nu18). */
  info.plan_done = 4;
  pd_session_item_update (item, &info, now);
  {
    g_autoptr(GDateTime) later = g_date_time_add_hours (now, 1);

    pd_session_item_update_time (item, later);
    g_assert_cmpstr (pd_session_info_get_shown_state (&info, g_date_time_to_unix (later) * G_USEC_PER_SEC), ==, "done");
  }
  g_assert_cmpstr (pd_session_item_get_status_label (item), ==, "Done");
  /* No plan: idle it is. */
  info.plan_total = info.plan_done = 0;
  pd_session_item_update (item, &info, now);
  g_assert_cmpstr (pd_session_item_get_status_label (item), ==, "Idle");
}

/* --- relative times ------------------------------------------------------ */

static void
test_relative_time (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_utc (2026, 11, 30, 12, 0, 0);
  gint64 now_us = g_date_time_to_unix (now) * G_USEC_PER_SEC;
  struct { gint64 ago_s; const char *expected; } cases[] = {
    { 5, "just now" },
    { 60, "1 min ago" },
    { 2 * 60, "2 min ago" },
    { 59 * 60, "59 min ago" },
    { 3 * 3600, "3 h ago" },
    { 30 * 3600, "yesterday" },
    { 4 * 86400, "4 days ago" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = pd_format_relative_time (now_us - cases[i].ago_s * G_USEC_PER_SEC, now);

      g_assert_cmpstr (text, ==, cases[i].expected);
    }

  {
    g_autofree char *old = pd_format_relative_time (now_us - (gint64) 40 * 86400 * G_USEC_PER_SEC, now);

    g_assert_nonnull (strstr (old, "2026"));
  }

  /* Ahead of the clock: a clock a little fast is now; a transcript dated
   * 2099 read "just now" for ever (tried as an attacker would), it says
   * its date. */
  {
    g_autofree char *ahead = pd_format_relative_time (now_us + 2 * 60 * G_USEC_PER_SEC, now);
    g_autofree char *far = pd_format_relative_time (now_us + (gint64) 6 * 60 * G_USEC_PER_SEC, now);
    g_autoptr(GDateTime) year = g_date_time_new_utc (2099, 6, 15, 12, 0, 0);
    g_autofree char *later = pd_format_relative_time (g_date_time_to_unix (year) * G_USEC_PER_SEC, now);

    g_assert_cmpstr (ahead, ==, "just now");
    g_assert_nonnull (strstr (far, "2026"));
    g_assert_nonnull (strstr (later, "2099"));
  }
}

static gboolean
rereads_answered (gpointer data)
{
  guint out = 0;

  _pd_session_list_get_n_rereads (data, &out);
  return out == 0;
}

/* An imported session open while its transcript grows: the source says
 * "changed" for every write the watcher reads, and each read the open row
 * again, a read of the whole transcript on a worker.  Of a 30 MB Claude
 * Code session grown by 200 lines every 0.5 s (tried as an attacker
 * would), the reads piled up, none waited for nor cancelled: 4.7 GB, and
 * 300 s of CPU in 40 s.  A burst of changes has one read on its way at a
 * time, and one more after it for the changes it did not see. */
static void
test_session_list_reread_coalesced (Fixture       *f,
                                    gconstpointer  data)
{
  guint before, after, out = 0;

  g_assert_true (pd_session_list_select (f->list, f->docs));
  pd_test_wait_until (rereads_answered, f->list, "the open row read");
  before = _pd_session_list_get_n_rereads (f->list, NULL);

  for (guint i = 0; i < 20; i++)
    pd_source_emit_changed (f->source);
  _pd_session_list_get_n_rereads (f->list, &out);
  g_assert_cmpuint (out, ==, 1);

  pd_test_wait_until (rereads_answered, f->list, "the open row read again");
  after = _pd_session_list_get_n_rereads (f->list, NULL);
  g_assert_cmpuint (after - before, ==, 2);
  g_assert_cmpstr (pd_session_item_get_id (pd_session_list_get_selected_item (f->list)), ==, f->docs);
}

/* The session whose row has the keyboard focus, or NULL. */
static const char *
focused_id (Fixture *f)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (f->window));
  GtkWidget *row = focus != NULL ? gtk_widget_get_first_child (focus) : NULL;

  return row != NULL && PD_IS_SESSION_ROW (row) ? pd_session_item_get_id (pd_session_row_get_item (PD_SESSION_ROW (row)))
                                                : NULL;
}

/* A listing read again that moves the focused session (a removal's toast
 * gone, the removal done and listed again; here a pin) keeps the focus on
 * that session's row.  Its row widget was recycled, and GTK put the focus
 * on the list's last row, the list scrolled to its end (tried as a new
 * user would, with a screen reader: the focus jumped ~5 s after Remove
 * From List). */
static void
test_session_list_move_keeps_focus (Fixture       *f,
                                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  GtkWidget *docs_row;

  pd_test_flush (GTK_WIDGET (f->window));
  docs_row = pd_test_session_list_find_row (f, pd_session_list_model_find (pd_session_list_get_model (f->list),
                                                                           f->docs, NULL));
  g_assert_nonnull (docs_row);
  g_assert_true (gtk_widget_grab_focus (docs_row));
  g_assert_cmpstr (focused_id (f), ==, f->docs);

  g_assert_true (pd_session_store_set_pinned (f->store, f->docs, TRUE, &error));
  g_assert_no_error (error);
  pd_session_list_refresh (f->list);
  pd_test_session_list_wait_listing (f);
  g_assert_cmpstr (pd_session_item_get_id (pd_test_session_list_item_at (f, 0)), ==, f->docs);
  pd_test_spin (200);
  pd_test_flush (GTK_WIDGET (f->window));
  g_test_message ("moved to the top: the focus on %s (docs %s)", focused_id (f), f->docs);
  g_assert_cmpstr (focused_id (f), ==, f->docs);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  adw_init ();

#define ADD(path, func) \
  g_test_add ("/pd/ui/session-list/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  /* First: run after the others, its long wait once met a tooltip timeout
   * of GTK 4.8 left by an earlier test's destroyed window (a critical in
   * gdk_surface_get_device_position from the main loop, 1 run in 4). */
  g_test_add_func ("/pd/ui/session-list/long-listing-pages", test_session_list_long_listing_pages);
  ADD ("lists-newest-first", test_session_list_lists_newest_first);
  ADD ("filters", test_session_list_filters);
  ADD ("search-keeps-open", test_session_list_search_keeps_open);
  ADD ("late-reply-dropped", test_session_list_late_reply_dropped);
  ADD ("merge-keeps-items", test_session_list_merge_keeps_items);
  ADD ("follows-other-writers", test_session_list_follows_other_writers);
  ADD ("select-scrolls", test_session_list_select_scrolls);
  ADD ("menu-pins-and-renames", test_session_list_menu_pins_and_renames);
  ADD ("plain-text", test_session_list_plain_text);
  ADD ("hostile-text", test_session_list_hostile_text);
  ADD ("title-tooltip", test_session_list_title_tooltip);
  ADD ("menu-leaves-row", test_session_list_menu_leaves_row);
  ADD ("chips-whole", test_session_list_chips_whole);
  ADD ("reread-coalesced", test_session_list_reread_coalesced);
  ADD ("move-keeps-focus", test_session_list_move_keeps_focus);
  g_test_add_func ("/pd/ui/session-list/loading", test_session_list_loading);
  g_test_add_func ("/pd/ui/session-list/relative-time", test_relative_time);
  g_test_add_func ("/pd/ui/session-list/status-icons", test_status_icons);

  return g_test_run ();
}
