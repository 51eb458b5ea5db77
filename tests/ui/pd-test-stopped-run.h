/* pd-test-stopped-run.h: a session's views on a real database, and the
 * run its budget stopped
 *
 * What test-run-stopped.c, test-events-stopped.c and test-transcript-view.c
 * each wrote out: a view shown on a session of a PdTestDb, a wait for its
 * model's rows, its message rows and labels looked up, a plan message as
 * the engine wraps it, and the events a run its budget stopped leaves
 * (run_started, budget_exceeded, run_completed naming the budget).  Beside
 * pd-test-runs.h, which runs the whole application.  Header-only, as the
 * other test helpers, because each test is one source file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include "pd-message-item.h"
#include "pd-message-row.h"
#include "pd-plan.h"
#include "pd-session-store.h"
#include "pd-session-view.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

typedef struct
{
  GListModel *model;
  guint       n;
} PdTestCountWait;

/* For pd_test_wait_for(): @user_data's model holds its n items. */
static inline gboolean
pd_test_has_n_items (gpointer user_data)
{
  PdTestCountWait *wait = user_data;

  return g_list_model_get_n_items (wait->model) == wait->n;
}

static inline gboolean
pd_test_is_mapped_label (GtkWidget     *widget,
                         gconstpointer  text)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0;
}

static inline gboolean
pd_test_is_mapped_label_containing (GtkWidget     *widget,
                                    gconstpointer  text)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         strstr (gtk_label_get_text (GTK_LABEL (widget)), text) != NULL;
}

static inline gboolean
pd_test_is_image_with_tooltip (GtkWidget     *widget,
                               gconstpointer  tooltip)
{
  return GTK_IS_IMAGE (widget) && g_strcmp0 (gtk_widget_get_tooltip_text (widget), tooltip) == 0;
}

/* The row of @view showing message @index, %NULL while none does. */
static inline PdMessageRow *
pd_test_message_row (GtkWidget *view,
                     guint      index)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();

  pd_test_collect (view, PD_TYPE_MESSAGE_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    {
      PdMessageRow *row = g_ptr_array_index (rows, i);
      PdMessageItem *item = pd_message_row_get_item (row);

      if (item != NULL && pd_message_item_get_index (item) == index)
        return row;
    }
  return NULL;
}

/* @plan told the model, as the engine wraps it. */
static inline JsonObject *
pd_test_plan_message (PdPlanState *plan)
{
  g_autofree char *render = pd_plan_render_full (plan);
  g_autofree char *nonce = pd_plan_new_nonce ();
  g_autofree char *wrapped = pd_plan_wrap (render, nonce);

  return pd_test_message ("system", wrapped);
}

/* @view presented at @width × @height, on session @id of @db. */
static inline GtkWindow *
pd_test_show_session (GtkWidget  *view,
                      PdTestDb   *db,
                      const char *id,
                      int         width,
                      int         height)
{
  GtkWindow *window = pd_test_present (view, width, height);

  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  return window;
}

/* The events a run its @limit_name budget stopped leaves, as the engine
 * writes them: budget_exceeded at iteration @iteration (@observed of
 * @limit), then run_completed naming the budget, after @duration_ms with
 * @input_tokens in and @output_tokens out. */
static inline void
pd_test_db_add_stopped_run (PdTestDb   *db,
                            const char *id,
                            const char *limit_name,
                            gint64      iteration,
                            gint64      observed,
                            gint64      limit,
                            gint64      duration_ms,
                            gint64      input_tokens,
                            gint64      output_tokens)
{
  g_autofree char *exceeded = g_strdup_printf ("{\"limit_name\":\"%s\",\"observed\":%" G_GINT64_FORMAT
                                               ",\"limit\":%" G_GINT64_FORMAT "}", limit_name, observed, limit);
  g_autofree char *completed = g_strdup_printf ("{\"budget_exceeded\":\"%s\",\"duration_ms\":%" G_GINT64_FORMAT
                                                ",\"input_tokens\":%" G_GINT64_FORMAT ",\"output_tokens\":%"
                                                G_GINT64_FORMAT "}",
                                                limit_name, duration_ms, input_tokens, output_tokens);

  pd_test_db_add_event (db, id, PD_EVENT_RUN_STARTED, NULL, 0, "{\"model\":\"test-model\",\"provider\":\"replay\"}");
  pd_test_db_add_event (db, id, PD_EVENT_BUDGET_EXCEEDED, NULL, iteration, exceeded);
  pd_test_db_add_event (db, id, PD_EVENT_RUN_COMPLETED, NULL, 0, completed);
}
