/* pd-window-search.c: a search of the source chosen that finds nothing there
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * With one source chosen in the sidebar, a search asks it alone.  When it
 * finds nothing there, the window's other sources are asked for one match
 * each: where some have, the list names them instead of saying "No
 * Matching Sessions" beside another source's matches (tried as a new user
 * would: This Computer chosen said so while Build box held the session).
 * "No Matching Sessions" is said when no source has any.  A search or a
 * source changed meanwhile drops the late answers.
 */
#define G_LOG_DOMAIN "pd-window"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-multi-source.h"
#include "pd-ui-util-private.h"
#include "pd-window-private.h"

typedef struct
{
  GWeakRef   window;
  PdSource  *listed;     /* the source chosen when asked */
  char      *query;
  guint      pending;
  gboolean  *has;        /* per source asked, in that order */
  GPtrArray *names;      /* (element-type utf8) the names of those asked */
} Elsewhere;

static void
elsewhere_free (Elsewhere *elsewhere)
{
  g_weak_ref_clear (&elsewhere->window);
  g_clear_object (&elsewhere->listed);
  g_free (elsewhere->query);
  g_free (elsewhere->has);
  g_ptr_array_unref (elsewhere->names);
  g_free (elsewhere);
}

typedef struct
{
  Elsewhere *elsewhere;
  guint      index;
} Asked;

static void
on_asked (GObject      *object,
          GAsyncResult *result,
          gpointer      data)
{
  Asked *asked = data;
  Elsewhere *elsewhere = asked->elsewhere;
  g_autoptr(PdSessionPage) page = pd_source_list_sessions_finish (PD_SOURCE (object), result, NULL);
  g_autoptr(PdWindow) self = NULL;
  g_autoptr(GString) names = NULL;

  elsewhere->has[asked->index] = page != NULL && page->sessions->len > 0;
  g_free (asked);
  if (--elsewhere->pending > 0)
    return;

  self = g_weak_ref_get (&elsewhere->window);
  if (self != NULL && self->session_list != NULL &&
      pd_session_list_get_source (self->session_list) == elsewhere->listed &&
      g_strcmp0 (pd_session_list_get_query (self->session_list), elsewhere->query) == 0)
    {
      names = g_string_new (NULL);
      for (guint i = 0; i < elsewhere->names->len; i++)
        if (elsewhere->has[i])
          {
            if (names->len > 0)
              /* Translators: between the names of sources a search found sessions in */
              g_string_append (names, _(", "));
            g_string_append (names, g_ptr_array_index (elsewhere->names, i));
          }
      pd_session_list_set_found_elsewhere (self->session_list, names->len > 0 ? names->str : NULL);
      _pd_window_update_content (self);
    }
  elsewhere_free (elsewhere);
}

/* With a search and no session open, the page beside the list says what
 * the list shows: it said "No Matching Sessions" beside the list's matches,
 * and beside its "Found in …" (tried as a new user would).  FALSE when
 * there is no search. */
gboolean
_pd_window_describe_search (PdWindow *self)
{
  AdwStatusPage *page = ADW_STATUS_PAGE (gtk_stack_get_child_by_name (self->content_stack, "no-results"));
  GListModel *model = G_LIST_MODEL (pd_session_list_get_model (self->session_list));
  const char *elsewhere = pd_session_list_get_found_elsewhere (self->session_list);
  guint n = g_list_model_get_n_items (model);
  g_autofree char *description = NULL;

  if (pd_session_list_get_query (self->session_list) == NULL)
    return FALSE;
  if (n > 0)
    {
      adw_status_page_set_title (page, _("Search Results"));
      description = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u session matches: choose it in the list.",
                                                  "%u sessions match: choose one in the list.", n), n);
    }
  else
    {
      /* The page's description is markup: the names, the person's own,
       * are escaped. */
      g_autofree char *names = elsewhere != NULL ? g_markup_escape_text (elsewhere, -1) : NULL;

      adw_status_page_set_title (page, _("No Matching Sessions"));
      /* Translators: %s is the name of one or more sources, such as Build box */
      description = names != NULL ? g_strdup_printf (_("Found in %s: choose All Sources to see them."), names)
                                  : g_strdup (_("Try other words, or search the transcripts too."));
    }
  adw_status_page_set_description (page, description);
  return TRUE;
}

/* The session list's ::search-counted: @n matches in the source listed. */
void
_pd_window_on_search_counted (PdWindow *self,
                              int       n)
{
  PdSource *listed = pd_session_list_get_source (self->session_list);
  const char *query = pd_session_list_get_query (self->session_list);
  Elsewhere *elsewhere;
  guint n_sources;

  /* All sources searched already, or one alone in the window. */
  if (n != 0 || query == NULL || self->sources == NULL || listed == NULL || PD_IS_MULTI_SOURCE (listed))
    return;
  n_sources = g_list_model_get_n_items (G_LIST_MODEL (self->sources));
  if (n_sources < 2)
    return;

  elsewhere = g_new0 (Elsewhere, 1);
  g_weak_ref_init (&elsewhere->window, self);
  elsewhere->listed = g_object_ref (listed);
  elsewhere->query = g_strdup (query);
  elsewhere->has = g_new0 (gboolean, n_sources);
  elsewhere->names = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < n_sources; i++)
    {
      g_autoptr(PdSource) source = g_list_model_get_item (G_LIST_MODEL (self->sources), i);
      Asked *asked;

      if (source == listed)
        continue;
      asked = g_new0 (Asked, 1);
      asked->elsewhere = elsewhere;
      asked->index = elsewhere->names->len;
      g_ptr_array_add (elsewhere->names, _pd_isolated_short (pd_source_list_get_name (self->sources, source), 80));
      elsewhere->pending++;
      pd_source_list_sessions_async (source, query, pd_session_list_get_full_text (self->session_list), 0, 1,
                                     self->cancellable, on_asked, asked);
    }
  if (elsewhere->pending == 0)
    elsewhere_free (elsewhere);
}
