/* pd-types.h: the names of core's types, declared ahead.
 *
 * A header that only passes a type around by pointer includes this instead
 * of the type's own header, so that including it does not pull in half of
 * core (and, through it, layers its includer may not use).  The full
 * declarations, with G_DECLARE_*_TYPE, stay in each type's header; C11
 * lets them repeat these typedefs.
 *
 * It lives in base, the layer every other one may include (core/meson.build):
 * naming a type is not using it.  Only declarations belong here.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* plan */
typedef struct _PdPlanStore         PdPlanStore;
typedef struct _PdPlanRenderCache   PdPlanRenderCache;

/* config */
typedef struct _PdConfig            PdConfig;

/* events */
typedef struct _PdEvent             PdEvent;
typedef struct _PdEventBus          PdEventBus;

/* store */
typedef struct _PdDb                PdDb;
typedef struct _PdSessionStore      PdSessionStore;

/* engine */
typedef struct _PdApprover          PdApprover;
typedef struct _PdDemo              PdDemo;
typedef struct _PdEngine            PdEngine;
typedef struct _PdEngineBuilder     PdEngineBuilder;
typedef struct _PdHttpProvider      PdHttpProvider;
typedef struct _PdPlanMode          PdPlanMode;
typedef struct _PdProvider          PdProvider;
typedef struct _PdTool              PdTool;
typedef struct _PdToolContext       PdToolContext;
typedef struct _PdToolRegistry      PdToolRegistry;
typedef struct _PdTranscript        PdTranscript;

/* import */
typedef struct _PdChecklist         PdChecklist;
typedef struct _PdImportIndex       PdImportIndex;
typedef struct _PdImportedSession   PdImportedSession;
typedef struct _PdTranscriptReader  PdTranscriptReader;

/* core's own: the sources the UI reads sessions through */
typedef struct _PdSource            PdSource;
typedef struct _PdLocalSource       PdLocalSource;

/* serve */
typedef struct _PdRemoteSource      PdRemoteSource;
typedef struct _PdServer            PdServer;

G_END_DECLS
