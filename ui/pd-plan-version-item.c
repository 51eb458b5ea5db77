/* pd-plan-version-item.c: one stored plan version, as the history lists it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Immutable.  The state is parsed once; a version whose JSON does not parse
 * is listed with an empty plan rather than hidden.
 */
#define G_LOG_DOMAIN "pd-plan-version-item"

#include "config.h"

#include "pd-json.h"

#include <string.h>

#include <glib/gi18n.h>

#include "pd-plan-version-item.h"
#include "pd-ui-util-private.h"

struct _PdPlanVersionItem
{
  GObject      parent_instance;

  gint64       version;
  gint64       created_at;
  char        *state_json;
  PdPlanState *state;
  char        *label;
  guint        n_cancelled;
};

G_DEFINE_FINAL_TYPE (PdPlanVersionItem, pd_plan_version_item, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_VERSION,
  PROP_LABEL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
pd_plan_version_item_finalize (GObject *object)
{
  PdPlanVersionItem *self = PD_PLAN_VERSION_ITEM (object);

  g_free (self->state_json);
  g_clear_pointer (&self->state, pd_plan_state_free);
  g_free (self->label);

  G_OBJECT_CLASS (pd_plan_version_item_parent_class)->finalize (object);
}

static void
pd_plan_version_item_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  PdPlanVersionItem *self = PD_PLAN_VERSION_ITEM (object);

  switch (prop_id)
    {
    case PROP_VERSION:
      g_value_set_int64 (value, self->version);
      break;
    case PROP_LABEL:
      g_value_set_string (value, self->label);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_plan_version_item_class_init (PdPlanVersionItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pd_plan_version_item_finalize;
  object_class->get_property = pd_plan_version_item_get_property;

  properties[PROP_VERSION] =
    g_param_spec_int64 ("version", NULL, NULL, 0, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_LABEL] =
    g_param_spec_string ("label", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
pd_plan_version_item_init (PdPlanVersionItem *self)
{
}

/* Steps an imported agent cancelled (and the user did not tick): our plans
 * have no such status, so the pages write them "blocked" with the agent's
 * own word beside it.  Like the sidebar, they count neither way. */
static guint
count_cancelled (const char *state_json)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  JsonNode *root;
  JsonNode *steps;
  guint n = 0;

  if (strstr (state_json, "agent_status") == NULL || pd_json_nesting_exceeds (state_json, -1, PD_JSON_FOREIGN_MAX_DEPTH) ||
      !json_parser_load_from_data (parser, state_json, -1, NULL))
    return 0;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return 0;
  steps = json_object_get_member (json_node_get_object (root), "steps");
  if (steps == NULL || !JSON_NODE_HOLDS_ARRAY (steps))
    return 0;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (steps)); i++)
    {
      JsonNode *node = json_array_get_element (json_node_get_array (steps), i);
      JsonObject *step;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      step = json_node_get_object (node);
      if (g_strcmp0 (json_object_get_string_member_with_default (step, "agent_status", NULL), "cancelled") == 0 &&
          g_strcmp0 (json_object_get_string_member_with_default (step, "status", NULL), "blocked") == 0)
        n++;
    }
  return n;
}

/**
 * pd_plan_version_item_new:
 * @state_json: pd_plan_state_to_json() of that version
 *
 * Returns: (transfer full): a new item
 */
PdPlanVersionItem *
pd_plan_version_item_new (gint64      version,
                          gint64      created_at,
                          const char *state_json)
{
  PdPlanVersionItem *self = g_object_new (PD_TYPE_PLAN_VERSION_ITEM, NULL);
  g_autofree char *time = _pd_format_local_time (created_at);
  PdPlanCounts counts = { 0 };

  self->version = version;
  self->created_at = created_at;
  self->state_json = g_strdup (state_json ? state_json : "");
  self->state = pd_plan_state_new_from_json (self->state_json, NULL);
  if (self->state == NULL)
    {
      self->state = pd_plan_state_new ();
      self->state->version = version;
    }

  pd_plan_state_count (self->state, &counts);
  self->n_cancelled = count_cancelled (self->state_json);
  /* Translators: a plan version in the history list: "v3 · 12:04:31 · 2/5 done" */
  self->label = g_strdup_printf (_("v%lld · %s · %u/%u done"), (long long) version, time,
                                 counts.done, counts.steps - MIN (self->n_cancelled, counts.steps));

  return self;
}

gint64
pd_plan_version_item_get_version (PdPlanVersionItem *self)
{
  g_return_val_if_fail (PD_IS_PLAN_VERSION_ITEM (self), 0);
  return self->version;
}

gint64
pd_plan_version_item_get_created_at (PdPlanVersionItem *self)
{
  g_return_val_if_fail (PD_IS_PLAN_VERSION_ITEM (self), 0);
  return self->created_at;
}

const char *
pd_plan_version_item_get_state_json (PdPlanVersionItem *self)
{
  g_return_val_if_fail (PD_IS_PLAN_VERSION_ITEM (self), NULL);
  return self->state_json;
}

/**
 * pd_plan_version_item_get_state:
 *
 * Returns: (transfer none): the plan as it was at this version
 */
const PdPlanState *
pd_plan_version_item_get_state (PdPlanVersionItem *self)
{
  g_return_val_if_fail (PD_IS_PLAN_VERSION_ITEM (self), NULL);
  return self->state;
}

const char *
pd_plan_version_item_get_label (PdPlanVersionItem *self)
{
  g_return_val_if_fail (PD_IS_PLAN_VERSION_ITEM (self), NULL);
  return self->label;
}

/* Steps the imported agent cancelled, counted in neither done nor total. */
guint
pd_plan_version_item_get_n_cancelled (PdPlanVersionItem *self)
{
  g_return_val_if_fail (PD_IS_PLAN_VERSION_ITEM (self), 0);
  return self->n_cancelled;
}

/**
 * pd_plan_version_item_describe_gaps:
 * @versions: the history's PdPlanVersionItems, oldest first
 *
 * Versions a turn replaced before it was saved are not in the history: one
 * line names them and says why, so no one wonders where v3 went.
 *
 * Returns: (transfer full) (nullable): that line, or %NULL with no gap
 */
char *
pd_plan_version_item_describe_gaps (GListModel *versions)
{
  g_autoptr(GString) missing = g_string_new (NULL);
  guint n_missing = 0;
  guint n_named = 0;
  gint64 previous = 0;

  for (guint i = 0; i < g_list_model_get_n_items (versions); i++)
    {
      g_autoptr(PdPlanVersionItem) item = g_list_model_get_item (versions, i);
      gint64 version = pd_plan_version_item_get_version (item);

      if (i > 0 && version > previous + 1)
        {
          n_missing += (guint) MIN (version - previous - 1, (gint64) G_MAXUINT / 4);
          /* The first few are named, the rest counted. */
          for (gint64 v = previous + 1; v < version && n_named < 5; v++)
            {
              if (n_named > 0)
                g_string_append (missing, ", ");
              g_string_append_printf (missing, "v%lld", (long long) v);
              n_named++;
            }
        }
      previous = version;
    }

  if (n_missing == 0)
    return NULL;
  if (n_missing > n_named)
    {
      /* Translators: more versions not listed than are named */
      g_string_append_printf (missing, g_dngettext (GETTEXT_PACKAGE, " and %u more", " and %u more",
                                                    n_missing - n_named), n_missing - n_named);
    }
  /* Translators: %s names the versions, e.g. "v3, v7" */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "Not listed: %s. The plan changed more than once in one turn, "
                                       "and each turn keeps only its last version.",
                                       "Not listed: %s. The plan changed more than once in one turn, "
                                       "and each turn keeps only its last version.", n_missing),
                          missing->str);
}

/**
 * pd_plan_version_item_describe_older:
 * @versions: the history's PdPlanVersionItems, oldest first
 *
 * Another agent's long history lists its newest versions only, numbered
 * among all (pd_session_reads_list_plan_versions()): the older ones are
 * said above the list (tried as an attacker would: a session of 90,003
 * versions began at v89004 with no word of the others).
 *
 * Returns: (transfer full) (nullable): "N older versions not shown", or
 *   %NULL when the history is whole
 */
char *
pd_plan_version_item_describe_older (GListModel *versions)
{
  g_autoptr(PdPlanVersionItem) first = NULL;
  gint64 older;

  if (g_list_model_get_n_items (versions) < PD_PLAN_VERSION_ITEM_HISTORY_MAX
      || !(first = g_list_model_get_item (versions, 0)))
    return NULL;
  older = pd_plan_version_item_get_version (first) - 1;
  if (older <= 0)
    return NULL;
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "%lld older version not shown",
                                       "%lld older versions not shown",
                                       (gulong) MIN (older, (gint64) G_MAXULONG)),
                          (long long) older);
}
