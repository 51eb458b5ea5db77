/* pd-session-row.c: one row of the session list
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The template binds the labels to the PdSessionItem; the code keeps the
 * status icon's accessible name and the status style class in step, and
 * names the row for a screen reader: on GTK 4.8 the list view's item cannot
 * be named, so the row widget inside it carries the name (the title) and
 * the description (status, agent, time, "3 of 4 steps done, 1 blocked"),
 * in that order, rather than the labels' "Failed | title | … | 3/4".
 *
 * A title, an agent's name and a source's name come from elsewhere (an
 * endpoint, a transcript): each label shows it on one line, its controls
 * visible or as spaces and inside its own isolate (_pd_isolated_short()),
 * so "\u202eevil.exe\u202c gnp.md" reads as it is, not "gnp.md exe.live",
 * and a name ending in U+202E cannot run into the label after it.
 */
#define G_LOG_DOMAIN "pd-session-row"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-plan-pie.h"
#include "pd-safe-text.h"
#include "pd-session-row.h"
#include "pd-ui-util-private.h"

/* How much of anyone's text (a title, an endpoint's agent name) a row
 * shows: more would not fit, and a 300,000-character title laid out
 * whole for every row slowed the list for nothing. */
#define PD_SESSION_ROW_MAX_CHARS 240

struct _PdSessionRow
{
  AdwBin         parent_instance;

  PdSessionItem *item;
  gulong         status_handler;

  GtkImage      *status_icon;
  GtkWidget     *title;
  GtkWidget     *chip;
};

G_DEFINE_FINAL_TYPE (PdSessionRow, pd_session_row, ADW_TYPE_BIN)

enum {
  PROP_0,
  PROP_ITEM,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
pd_session_row_sync_status (PdSessionRow *self)
{
  static const char * const classes[] = { "running", "failed", "stalled", "idle" };
  GtkWidget *icon = GTK_WIDGET (self->status_icon);
  const char *label = NULL;
  const char *wanted = NULL;

  if (self->item != NULL)
    {
      const PdSessionInfo *info = pd_session_item_get_info (self->item);

      label = pd_session_item_get_status_label (self->item);
      gtk_image_set_from_icon_name (self->status_icon, pd_session_item_get_status_icon (self->item));
      wanted = pd_session_item_get_working (self->item) ? "running"
             : info->status == PD_SESSION_STATUS_FAILED ? "failed"
             : g_str_equal (pd_session_item_get_status_icon (self->item), "preferences-system-time-symbolic") ? "stalled"
             : "idle";
    }

  for (guint i = 0; i < G_N_ELEMENTS (classes); i++)
    if (g_strcmp0 (classes[i], wanted) != 0)
      gtk_widget_remove_css_class (icon, classes[i]);
  if (wanted != NULL)
    gtk_widget_add_css_class (icon, wanted);

  gtk_widget_set_tooltip_text (icon, label);
  _pd_accessible_set_text (GTK_WIDGET (icon), label != NULL ? label : "", NULL);
}

/* The list item the row sits in is what takes the keyboard focus, and a
 * screen reader says its name: read over AT-SPI it had none (GTK 4.8 gives
 * a list item no name of its own). It is named as the row is. */
static GtkWidget *
pd_session_row_list_item (PdSessionRow *self)
{
  GtkWidget *parent = gtk_widget_get_parent (GTK_WIDGET (self));

  if (parent != NULL && gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (parent)) == GTK_ACCESSIBLE_ROLE_LIST_ITEM)
    return parent;
  return NULL;
}

/* Anyone's text as a label of the row shows it (see the top). */
static char *
safe_text (const char *text)
{
  if (text == NULL || text[0] == '\0')
    return g_strdup ("");
  return _pd_isolated_short (text, PD_SESSION_ROW_MAX_CHARS);
}

/* The same for a screen reader, which reads no bidi: one line, controls
 * shown, cut; no isolate around it. */
static char *
spoken_text (const char *text)
{
  char *safe = pd_safe_text_line (text != NULL ? text : "");

  if (g_utf8_strlen (safe, -1) > PD_SESSION_ROW_MAX_CHARS)
    {
      g_autofree char *head = g_utf8_substring (safe, 0, PD_SESSION_ROW_MAX_CHARS - 1);

      g_free (safe);
      safe = g_strconcat (head, "…", NULL);
    }
  return safe;
}

static char *
safe_label (gpointer    unused,
            const char *text)
{
  return safe_text (text);
}

/* The agent's chip keeps its whole name up to CHIP_MAX_CHARS: "Claude
 * Code" was cut to "Claude C…" at the default window width, while the
 * time beside it never gives way (tried as a new user would).  An
 * endpoint's longer name is cut there, its whole name in the tooltip. */
#define CHIP_MAX_CHARS 24

static PangoEllipsizeMode
chip_ellipsize (gpointer    unused,
                const char *text)
{
  g_autofree char *spoken = spoken_text (text);

  return g_utf8_strlen (spoken, -1) > CHIP_MAX_CHARS ? PANGO_ELLIPSIZE_END : PANGO_ELLIPSIZE_NONE;
}

static char *
chip_tooltip (gpointer    unused,
              const char *text)
{
  g_autofree char *spoken = spoken_text (text);

  return g_utf8_strlen (spoken, -1) > CHIP_MAX_CHARS ? g_steal_pointer (&spoken) : NULL;
}

/* The source's line shows when the list names one. */
static gboolean
has_text (gpointer    unused,
          const char *text)
{
  return text != NULL && text[0] != '\0';
}

static void
pd_session_row_sync_accessible (PdSessionRow *self)
{
  g_autoptr(GString) description = g_string_new (NULL);
  g_autofree char *plan = NULL;
  g_autofree char *title = NULL;
  g_autofree char *agent = NULL;
  g_autofree char *origin = NULL;
  gboolean has_plan = FALSE;
  const char *parts[5];
  GtkWidget *list_item = pd_session_row_list_item (self);

  if (self->item == NULL)
    {
      gtk_accessible_reset_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL);
      gtk_accessible_reset_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
      if (list_item != NULL)
        {
          gtk_accessible_reset_property (GTK_ACCESSIBLE (list_item), GTK_ACCESSIBLE_PROPERTY_LABEL);
          gtk_accessible_reset_property (GTK_ACCESSIBLE (list_item), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
        }
      return;
    }

  g_object_get (self->item, "has-plan", &has_plan, "plan-tooltip", &plan, NULL);
  parts[0] = pd_session_item_get_status_label (self->item);
  /* Pinned was only the row's place at the top: said in words. */
  parts[1] = pd_session_item_get_pinned (self->item) ? _("Pinned") : NULL;
  parts[2] = agent = spoken_text (pd_session_item_get_source_label (self->item));
  parts[3] = origin = spoken_text (pd_session_item_get_origin (self->item));
  parts[4] = pd_session_item_get_relative_time (self->item);
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      if (parts[i] == NULL || parts[i][0] == '\0')
        continue;
      if (description->len > 0)
        /* Translators: separates the parts of a session row's spoken description */
        g_string_append (description, _(", "));
      g_string_append (description, parts[i]);
    }
  if (has_plan && plan != NULL && plan[0] != '\0')
    {
      if (description->len > 0)
        g_string_append (description, _(", "));
      g_string_append (description, plan);
    }

  title = spoken_text (pd_session_item_get_title (self->item));
  _pd_accessible_set_text (GTK_WIDGET (self), title, description->str);
  if (list_item != NULL)
    _pd_accessible_set_text (GTK_WIDGET (list_item), title, description->str);
}

/* Put in its list item after it was given its session: name that too. */
static void
pd_session_row_root (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (pd_session_row_parent_class)->root (widget);
  pd_session_row_sync_accessible (PD_SESSION_ROW (widget));
}

/* A session its source did not list this time (an endpoint gone away):
 * its title dimmed, its source label saying why.  Not the whole row at
 * .dim-label's 0.7: over the row's own dimmed labels that put the date and
 * "Demo box · Unreachable" at 0.49 (#9B9B9B, 2.78:1) and the pie at
 * 2.76:1 (tried as a new user would; style.css). */
static void
pd_session_row_sync_stale (PdSessionRow *self)
{
  if (self->item != NULL && pd_session_item_get_stale (self->item))
    gtk_widget_add_css_class (GTK_WIDGET (self), "stale");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self), "stale");
}

static void
on_item_notify (PdSessionRow *self,
                GParamSpec   *pspec)
{
  if (g_str_equal (pspec->name, "status-icon"))
    pd_session_row_sync_status (self);
  if (g_str_equal (pspec->name, "stale"))
    pd_session_row_sync_stale (self);
  pd_session_row_sync_accessible (self);
}

static void
pd_session_row_dispose (GObject *object)
{
  PdSessionRow *self = PD_SESSION_ROW (object);

  pd_session_row_set_item (self, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), PD_TYPE_SESSION_ROW);

  G_OBJECT_CLASS (pd_session_row_parent_class)->dispose (object);
}

static void
pd_session_row_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  PdSessionRow *self = PD_SESSION_ROW (object);

  switch (prop_id)
    {
    case PROP_ITEM:
      g_value_set_object (value, self->item);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_session_row_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  PdSessionRow *self = PD_SESSION_ROW (object);

  switch (prop_id)
    {
    case PROP_ITEM:
      pd_session_row_set_item (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* Whether a popover (the row's context menu) is open on a widget that
 * holds @widget: a tooltip then would sit over the menu's items. */
static gboolean
popover_open_above (GtkWidget *widget)
{
  for (GtkWidget *ancestor = widget; ancestor != NULL; ancestor = gtk_widget_get_parent (ancestor))
    for (GtkWidget *child = gtk_widget_get_first_child (ancestor); child != NULL;
         child = gtk_widget_get_next_sibling (child))
      if (GTK_IS_POPOVER (child) && gtk_widget_get_visible (child))
        return TRUE;
  return FALSE;
}

/* The title's tooltip says the whole title, so only when the row cuts
 * it, and never over an open context menu: it showed for every row,
 * covering the menu a right click opened there (tried as a new user
 * would). */
static gboolean
on_title_query_tooltip (GtkLabel   *title,
                        int         x,
                        int         y,
                        gboolean    keyboard,
                        GtkTooltip *tooltip,
                        gpointer    user_data)
{
  if (!pango_layout_is_ellipsized (gtk_label_get_layout (title)) || popover_open_above (GTK_WIDGET (title)))
    return FALSE;
  gtk_tooltip_set_text (tooltip, gtk_label_get_text (title));
  return TRUE;
}

static void
pd_session_row_class_init (PdSessionRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pd_session_row_dispose;
  object_class->get_property = pd_session_row_get_property;
  object_class->set_property = pd_session_row_set_property;
  widget_class->root = pd_session_row_root;

  properties[PROP_ITEM] =
    g_param_spec_object ("item", NULL, NULL, PD_TYPE_SESSION_ITEM,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (PD_TYPE_PLAN_PIE);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-session-row.ui");
  gtk_widget_class_bind_template_child (widget_class, PdSessionRow, status_icon);
  gtk_widget_class_bind_template_child (widget_class, PdSessionRow, title);
  gtk_widget_class_bind_template_child (widget_class, PdSessionRow, chip);
  gtk_widget_class_bind_template_callback (widget_class, on_title_query_tooltip);
  gtk_widget_class_bind_template_callback (widget_class, safe_label);
  gtk_widget_class_bind_template_callback (widget_class, has_text);
  gtk_widget_class_bind_template_callback (widget_class, chip_ellipsize);
  gtk_widget_class_bind_template_callback (widget_class, chip_tooltip);
  gtk_widget_class_set_css_name (widget_class, "session-row");
}

static void
pd_session_row_init (PdSessionRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  /* Its title and chips are read without their isolates. */
  _pd_labels_speak_plain (GTK_WIDGET (self));
}

PdSessionItem *
pd_session_row_get_item (PdSessionRow *self)
{
  g_return_val_if_fail (PD_IS_SESSION_ROW (self), NULL);

  return self->item;
}

void
pd_session_row_set_item (PdSessionRow  *self,
                         PdSessionItem *item)
{
  g_return_if_fail (PD_IS_SESSION_ROW (self));
  g_return_if_fail (item == NULL || PD_IS_SESSION_ITEM (item));

  if (self->item == item)
    return;

  if (self->item != NULL)
    g_clear_signal_handler (&self->status_handler, self->item);
  g_set_object (&self->item, item);
  if (item != NULL)
    self->status_handler = g_signal_connect_swapped (item, "notify",
                                                     G_CALLBACK (on_item_notify), self);

  pd_session_row_sync_status (self);
  pd_session_row_sync_stale (self);
  pd_session_row_sync_accessible (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ITEM]);
}
