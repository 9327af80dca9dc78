// Generated from openapi.json by openapi-typescript (npm run types): do not edit.

export type paths = {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether the service answers */
        get: operations["health_healthz_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent-manifests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List named manifests */
        get: operations["list_manifests_v1_agent_manifests_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent-manifests/{manifest_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a named manifest's current version */
        get: operations["get_manifest_v1_agent_manifests__manifest_name__get"];
        /**
         * Save a named manifest as its next version
         * @description Creates the name at version 1 (201) or adds a version (200), and moves every agent that follows it (`PUT /v1/agents/{agentId}` with `{"manifest": name}`) to the new version. A version that would renumber or drop a label a follower declares is refused, and nothing is saved.
         */
        put: operations["put_manifest_v1_agent_manifests__manifest_name__put"];
        post?: never;
        /**
         * Delete a named manifest and its versions
         * @description Refused (409 manifest_in_use) while an agent follows it.
         */
        delete: operations["delete_manifest_v1_agent_manifests__manifest_name__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent-manifests/{manifest_name}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a named manifest's versions, newest first */
        get: operations["list_versions_v1_agent_manifests__manifest_name__versions_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent-manifests/{manifest_name}/versions/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get one version of a named manifest */
        get: operations["get_version_v1_agent_manifests__manifest_name__versions__version__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List agents */
        get: operations["list_agents_v1_agents_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an agent
         * @description With `asOf`, the agent as it stood at that instant: the manifest version then (404 agent_not_found when the agent was made after it).
         */
        get: operations["get_agent_v1_agents__agent_id__get"];
        /**
         * Save an agent's manifest as its next version
         * @description Creates the agent at version 1 (201) or adds a version (200). A label once declared keeps its number in every later version. The body is a manifest (`{"harness": ...}`) or `{"manifest": "<name>"}`: the agent then follows that named manifest, moving to each version saved after (its versions name the one they came from). Any other top-level key is refused (400, nothing saved).
         */
        put: operations["put_agent_v1_agents__agent_id__put"];
        post?: never;
        /** Delete an agent and everything it owns */
        delete: operations["delete_agent_v1_agents__agent_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/consolidate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Consolidate the agent's record memory
         * @description Reviews every ACTIVE record of the agent (agent-scope records together, each session's session-scope records together): twins are merged into the most complete of them (the others SUPERSEDED, `replacedBy` naming it), a single-valued attribute given two values keeps the newer (the older SUPERSEDED), events older than their lifetime (`consolidation.stale_after`, else `expire_after.event`) expire now, and pins beyond `pinned.max_tokens` are unpinned, oldest first. A record changed while the run works is left alone (`skipped`). With `dryRun=true` the plan is returned and nothing is written or kept. Each run is kept (`GET .../-/consolidations`) and what it changed is announced as one `agent.memory_updated`.
         */
        post: operations["consolidate_v1_agents__agent_id__consolidate_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/consolidations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The agent's consolidation runs, newest first */
        get: operations["list_consolidations_v1_agents__agent_id__consolidations_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/entities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the agent's entities and what mentions them
         * @description The names (people, places, groups, products...) the agent's active live records, its file memories and the events of its committed live turns mention, read offline from their text (runs of capitalised words, possessives folded: `Caroline's` is caroline) and from the speaker an event's metadata names. Each entity has its key (lower case), how many documents mention it, and its newest `items` mentions: a record's id, a memory's path, an event's session and event id. In key order, a page at a time; `query` keeps the keys starting with it.
         */
        get: operations["list_entities_v1_agents__agent_id__entities_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read an agent out as bundle items, a page at a time
         * @description Its manifest versions, records and file memories with every version, sessions, turns with their executions and history events, and the embeddings the search index holds for them with their model. Takes the admin scope (not a credential bound to the agent role). A page ends at `limit` items or about 3 MB.
         */
        get: operations["export_agent_v1_agents__agent_id__export_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/fork": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Copy an agent under a new id */
        post: operations["fork_agent_v1_agents__agent_id__fork_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search the agent's history across its sessions
         * @description Events of committed live turns ranked by the query as search_history ranks them (the agent's harness.memory.search), best first; each result names its session and turn, one result an event (its best part). `sessionId` keeps one session; `fromTime` and `toTime` (ISO 8601, UTC when no zone is given) keep events whose time lies between them. Pages with `next`; the query's embedding is usage on the agent.
         */
        get: operations["search_v1_agents__agent_id__history_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Write a batch of an agent's bundle items, as they were
         * @description Items of this agent in the bundle's order (its agent item first); at most 500. Ids, versions, timestamps and provenance are kept. Every item is checked before any is written (a bad one: 400, nothing changed); an item stored already is kept (sending a batch again changes nothing). An agent of that id not made by an import of this bundle: 409 `agent_exists`. Takes the admin scope (not a credential bound to the agent role).
         */
        post: operations["import_agent_v1_agents__agent_id__import_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/index": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * How far the agent's search index has caught up
         * @description `pendingVectors`: what is findable by words but not yet by meaning.
         */
        get: operations["index_status_v1_agents__agent_id__index_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/manifest-versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List manifest versions, newest first */
        get: operations["list_versions_v1_agents__agent_id__manifest_versions_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/manifest-versions/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get one manifest version */
        get: operations["get_version_v1_agents__agent_id__manifest_versions__version__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/memories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List an agent's memories by path
         * @description With `asOf`, the memories as they stood at that instant, from their versions (a `query` then ranks them by words only).
         */
        get: operations["list_memories_v1_agents__agent_id__memories_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/memories/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read one memory with its content */
        get: operations["get_memory_v1_agents__agent_id__memories__path__get"];
        /**
         * Create or replace a memory whole
         * @description How an app seeds an agent's memory. With contentSha256 it is a compare-and-swap: 409 memory_conflict, with the current memory, when it does not hold.
         */
        put: operations["put_memory_v1_agents__agent_id__memories__path__put"];
        post?: never;
        /** Delete a memory, or every memory in a folder (with ?recursive=true) */
        delete: operations["delete_memory_v1_agents__agent_id__memories__path__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/memory-versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every change, newest first */
        get: operations["list_versions_v1_agents__agent_id__memory_versions_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/memory-versions/{version_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One version with the content it left (null for a delete) */
        get: operations["get_version_v1_agents__agent_id__memory_versions__version_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/records": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List or search an agent's memory records
         * @description Newest first, or ranked by `query`. With `asOf`, the records as they stood at that instant, from their versions: one superseded, deleted or expired since shows as it was; one written after it does not exist; expiry is judged at it.
         */
        get: operations["list_records_v1_agents__agent_id__records_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/records/{record_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a record, whatever its status */
        get: operations["get_record_v1_agents__agent_id__records__record_id__get"];
        put?: never;
        post?: never;
        /**
         * Delete a record
         * @description Gone from recall and search at once; it and its versions stay readable.
         */
        delete: operations["delete_record_v1_agents__agent_id__records__record_id__delete"];
        options?: never;
        head?: never;
        /**
         * Set or clear when a record expires
         * @description A new version naming who set it. From `expiresAt` on, the record leaves recall, search and listings and reads as `EXPIRED` (by id, with its versions); it is purged with its versions once the tenant's `expiredRetention` has passed after that. A time already past expires it at once; a later time or null brings an `EXPIRED` record not yet purged back to `ACTIVE`. A SUPERSEDED or DELETED record is a 409.
         */
        patch: operations["set_record_expiry_v1_agents__agent_id__records__record_id__patch"];
        trace?: never;
    };
    "/v1/agents/{agentId}/-/records/{record_id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a review's pending write
         * @description Applies what the PENDING record proposes (add, replace or delete) against the memory as it is now: 409 proposal_stale when the record it replaces or deletes changed since, 409 proposal_restates when an active memory already says it, 409 record_not_pending unless it is PENDING; a refused approval leaves it PENDING. An app's credential only (agents:write, not bound to the agent role).
         */
        post: operations["approve_record_v1_agents__agent_id__records__record_id__approve_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/records/{record_id}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reject a review's pending write
         * @description Marks the PENDING record REJECTED (a new version naming who rejected it); nothing it proposes is applied. 409 record_not_pending unless it is PENDING.
         */
        post: operations["reject_record_v1_agents__agent_id__records__record_id__reject_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/records/{record_id}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every version, newest first */
        get: operations["record_versions_v1_agents__agent_id__records__record_id__versions_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search the agent's records, file memories and history at once
         * @description One ranked list, best first, of the agent's active live records, its file memories and the events of its committed live turns (one result an event: its best part), ranked as the agent's harness.memory.search says. Each hit has a `type` (record | memory | history), its `score`, and what reading it needs: a record's id and version, a memory's path and version, an event's session, turn and event id. The query's embedding is usage on the agent. With `asOf`, what the agent knew at that instant: records and memories as they stood then (ranked by today's index: their text), events of turns committed by then.
         */
        get: operations["search_v1_agents__agent_id__search_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List sessions, oldest first */
        get: operations["list_sessions_v1_agents__agent_id__sessions_get"];
        put?: never;
        /** Start a session */
        post: operations["create_session_v1_agents__agent_id__sessions_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/sessions/{session_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a session */
        get: operations["get_session_v1_agents__agent_id__sessions__session_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/sessions/{session_id}/compact": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Compact: refresh the memory index */
        post: operations["compact_v1_agents__agent_id__sessions__session_id__compact_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/sessions/{session_id}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The whole session as JSON Lines */
        get: operations["export_v1_agents__agent_id__sessions__session_id__export_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/sessions/{session_id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Kept events of committed turns */
        get: operations["page_v1_agents__agent_id__sessions__session_id__history_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/sessions/{session_id}/memory-index": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The memory index the session opens with
         * @description A line per memory, newest first, with the description from its YAML frontmatter, within memoryIndexLines and memoryIndexBytes.
         */
        get: operations["memory_index_v1_agents__agent_id__sessions__session_id__memory_index_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/sessions/{session_id}/turns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the session's turns, in order */
        get: operations["list_turns_v1_agents__agent_id__sessions__session_id__turns_get"];
        put?: never;
        /**
         * Begin the session's next turn
         * @description The turn runs the agent's current manifest version; sequences are gap-free per session.
         */
        post: operations["begin_turn_v1_agents__agent_id__sessions__session_id__turns_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/sessions/{session_id}/turns/{turn_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a turn with the memories it wrote and its executions */
        get: operations["get_turn_v1_agents__agent_id__sessions__session_id__turns__turn_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/sessions/{session_id}/turns/{turn_id}/commit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Commit a turn */
        post: operations["commit_turn_v1_agents__agent_id__sessions__session_id__turns__turn_id__commit_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/sessions/{session_id}/turns/{turn_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Append a batch of the turn's events
         * @description Body {"events": [{"role": "user" | "assistant" | "tool_result" | "error", "text", "tool_name", "call_id", "tool_calls": [{"name", "call_id"}], "execution_id", "sequence", "time", "metadata"}]}. What harness.history.index keeps is searchable once the turn commits; a rolled-back turn's events never are. Idempotent by (turn, sequence).
         */
        post: operations["append_v1_agents__agent_id__sessions__session_id__turns__turn_id__events_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/sessions/{session_id}/turns/{turn_id}/extraction": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run a turn's failed post-turn review again
         * @description Queues the review again (a new run; in the cloud a new execution). 409 extraction_not_failed unless the review failed.
         */
        post: operations["rerun_extraction_v1_agents__agent_id__sessions__session_id__turns__turn_id__extraction_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/sessions/{session_id}/turns/{turn_id}/instructions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The memory part of the turn's instructions
         * @description Memory rules, harness.memory.instructions, and the pinned records the turn reads (one line each: summary and id).
         */
        get: operations["instructions_v1_agents__agent_id__sessions__session_id__turns__turn_id__instructions_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/sessions/{session_id}/turns/{turn_id}/recall": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Recall the records that best match the turn's context
         * @description Body: {"context": "...", "caller"?: {...}}. Returns the best matching records (harness.memory.search.max_results), marked as memory: data, never instructions. Recorded as a search_memory execution with recall: true unless it found nothing or the same record versions were already recalled in this turn.
         */
        post: operations["recall_v1_agents__agent_id__sessions__session_id__turns__turn_id__recall_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/sessions/{session_id}/turns/{turn_id}/rollback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Roll a turn back */
        post: operations["rollback_turn_v1_agents__agent_id__sessions__session_id__turns__turn_id__rollback_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/sessions/{session_id}/turns/{turn_id}/tools/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Call a native tool within a turn
         * @description The body is the tool's input plus `caller`: {"role": "agent" | "helper" | "programmatic" | "agent_as_tool", "execution", "invocation"}. Returns {"output": ...}; a refused call is a 4xx whose message is for the agent, and changes nothing. Every call is recorded as an execution on the turn. A credential limited to some caller roles may state only those: another is a 403 memory.forbidden that changes nothing.
         */
        post: operations["call_tool_v1_agents__agent_id__sessions__session_id__turns__turn_id__tools__name__post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The native tools the agent's manifest offers, as a model is offered them
         * @description What a session turn begun now offers, each with its input schema narrowed to the current manifest: kind as the declared kinds, labels as the declared labels with their descriptions, scope only when scope.write includes agent. A turn's instructions give those of the manifest version it runs.
         */
        get: operations["offered_tools_v1_agents__agent_id__tools_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/turns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the agent's turns without a session, in order */
        get: operations["list_agent_turns_v1_agents__agent_id__turns_get"];
        put?: never;
        /**
         * Begin a turn of the agent without a session
         * @description For triggers and wakes (`started_by`). Only an agent whose harness.memory.scope.read and scope.write are both ["agent"]: otherwise 409 session_required. The turn has no session: it writes agent scope, has no history to search, and its sequence counts the agent's sessionless turns.
         */
        post: operations["begin_agent_turn_v1_agents__agent_id__turns_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/turns/{turn_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a turn without a session, with the memories it wrote and its executions */
        get: operations["get_agent_turn_v1_agents__agent_id__turns__turn_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/turns/{turn_id}/commit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Commit a turn without a session */
        post: operations["commit_agent_turn_v1_agents__agent_id__turns__turn_id__commit_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/turns/{turn_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Append a batch of a turn's events (without a session)
         * @description As a session turn's events, but never searchable as history (an agent without sessions has none): they are kept for the turn's post-turn review only.
         */
        post: operations["append_agent_events_v1_agents__agent_id__turns__turn_id__events_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/turns/{turn_id}/instructions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The memory part of a sessionless turn's instructions */
        get: operations["agent_turn_instructions_v1_agents__agent_id__turns__turn_id__instructions_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/turns/{turn_id}/recall": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Recall the records that best match a sessionless turn's context */
        post: operations["agent_turn_recall_v1_agents__agent_id__turns__turn_id__recall_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/turns/{turn_id}/rollback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Roll back a turn without a session */
        post: operations["rollback_agent_turn_v1_agents__agent_id__turns__turn_id__rollback_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/turns/{turn_id}/tools/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Call a native tool within a turn without a session
         * @description As within a session turn. search_history is not offered: a turn without a session has no history.
         */
        post: operations["call_agent_tool_v1_agents__agent_id__turns__turn_id__tools__name__post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agentId}/-/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Model usage of an agent, newest first, with totals
         * @description Each row is one model call: purpose `embed` (an embedding, for search or indexing), `memory` (a post-turn review's model) or `search` (a rerank of a search's first hits, with its `latencyMs` and the `documents` it scored).
         */
        get: operations["usage_v1_agents__agent_id__usage_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every change made in the tenant, oldest first
         * @description Each entry: id, at, actor (`api:<token id>` embedded, `api:<JWT subject>` in the cloud), method, route, agentId, target, status. Filter by agentId, actor (as listed) and since (an ISO 8601 time with a zone). Takes the admin scope.
         */
        get: operations["list_audit_v1_audit_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Apply a batch of ingestion messages, in order
         * @description Body {"messages": [...]}, at most 500: the JSON Lines messages of `agent-memory ingest` (`{"op": "session" | "begin" | "events" | "commit" | "rollback", "agent", "session", "turn", ...}`). Each is applied on its own and answered in its place: `applied`, `already applied` (delivered before: nothing changed) or `failed` with the error it would have had alone. Events sent after their turn ended fail unless they were kept before.
         */
        post: operations["ingest_v1_ingest_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenant": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Reset the tenant: delete every agent with everything it owns
         * @description `confirm` must be the tenant's name (else 400 confirmation_mismatch). Deletes every agent with its records, memories, history, versions and usage, then takes the tenant's limits back to the deployment's (`limitsReset`); the audit trail and the tokens stay (`DELETE /v1/tenant/agents` keeps the limits too). Works for up to about 20 seconds and answers `done: false` when agents are left: ask again (a reset cut short, even mid-agent, is finished by the next). Takes the admin scope; audited.
         */
        delete: operations["reset_v1_tenant_delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenant/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Reset the tenant's agents: delete every agent with everything it owns
         * @description As `DELETE /v1/tenant`, but only the agents: the limits stay as the tenant's admin set them (and, as with every reset, the audit trail and the tokens). `confirm` must be the tenant's name; answers `done: false` while agents are left: ask again. Takes the admin scope; audited.
         */
        delete: operations["reset_agents_v1_tenant_agents_delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenant/limits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The limits that hold for the caller's tenant */
        get: operations["get_limits_v1_tenant_limits_get"];
        /**
         * Set the tenant's memoryBytes, memoriesPerAgent and expiredRetention
         * @description Fields left out keep their value. Takes the admin scope. Memories already over a lowered limit stay; the next write that would pass it is refused.
         */
        put: operations["put_limits_v1_tenant_limits_put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
};
export type webhooks = Record<string, never>;
export type components = {
    schemas: {
        "add_memory.input": components["schemas"]["ToolAddMemoryInCall"];
        "add_memory.output": components["schemas"]["ToolMemoriesOut"];
        /** Agent */
        Agent: {
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Forkedfrom */
            forkedFrom?: string | null;
            /** Id */
            id: string;
            /** Manifest */
            manifest: {
                [key: string]: unknown;
            };
            /** Manifestversion */
            manifestVersion: number;
            /**
             * Updatedat
             * Format: date-time
             */
            updatedAt: string;
        };
        /** AgentList */
        AgentList: {
            /** Agents */
            agents: components["schemas"]["Agent"][];
            /** Next */
            next: string | null;
        };
        /** AppendOut */
        AppendOut: {
            /**
             * Dropped
             * @description Events harness.history.index does not keep.
             */
            dropped: number;
            /** Ids */
            ids: string[];
            /** Kept */
            kept: number;
            /** Secrets */
            secrets?: components["schemas"]["KeptSecret"][] | null;
        };
        /** AuditEntry */
        AuditEntry: {
            /** Actor */
            actor: string;
            /** Agentid */
            agentId?: string | null;
            /**
             * At
             * Format: date-time
             */
            at: string;
            /** Id */
            id: string;
            /** Method */
            method: string;
            /** Route */
            route: string;
            /** Status */
            status: number;
            /** Target */
            target: string;
        };
        /** AuditList */
        AuditList: {
            /** Entries */
            entries: components["schemas"]["AuditEntry"][];
            /** Next */
            next?: string | null;
        };
        /** BeginTurnIn */
        BeginTurnIn: {
            /**
             * Id
             * @description Choose the id; generated if absent.
             */
            id?: string | null;
            /**
             * Preview
             * @default false
             */
            preview?: boolean;
            /** Replay Of */
            replay_of?: string | null;
            /**
             * Started By
             * @default app
             * @enum {string}
             */
            started_by?: "person" | "app" | "trigger" | "wake";
            /** Trigger Run Id */
            trigger_run_id?: string | null;
        };
        Change: {
            [key: string]: unknown;
        };
        /**
         * ConsolidationConfig
         * @description A consolidation on a schedule (`every`, an ISO 8601 duration of at least PT1H), and how
         *     old an event is when a consolidation expires it (`stale_after`; expire_after's event
         *     lifetime when not given).
         */
        ConsolidationConfig: {
            /** Every */
            every?: string | null;
            /** Stale After */
            stale_after?: string | null;
        };
        /** ConsolidationCounts */
        ConsolidationCounts: {
            /**
             * Expired
             * @default 0
             */
            expired?: number;
            /**
             * Kept
             * @default 0
             */
            kept?: number;
            /**
             * Merged
             * @default 0
             */
            merged?: number;
            /**
             * Skipped
             * @default 0
             */
            skipped?: number;
            /**
             * Superseded
             * @default 0
             */
            superseded?: number;
            /**
             * Unpinned
             * @default 0
             */
            unpinned?: number;
        };
        /** ConsolidationList */
        ConsolidationList: {
            /** Consolidations */
            consolidations: components["schemas"]["ConsolidationRun"][];
            /** Next */
            next?: string | null;
        };
        /**
         * ConsolidationRun
         * @description One consolidation of an agent: RUNNING while it applies its plan, then DONE or FAILED.
         *     A dry run is never kept: its answer is the plan.
         */
        ConsolidationRun: {
            /** Actions */
            actions?: components["schemas"]["PlannedAction"][];
            /** Actor */
            actor: string;
            /** Agentid */
            agentId: string;
            counts?: components["schemas"]["ConsolidationCounts"];
            /**
             * Dryrun
             * @default false
             */
            dryRun?: boolean;
            /** Failures */
            failures?: string[];
            /** Finishedat */
            finishedAt?: string | null;
            /** Id */
            id: string;
            /**
             * Startedat
             * Format: date-time
             */
            startedAt: string;
            /**
             * Status
             * @enum {string}
             */
            status: "RUNNING" | "DONE" | "FAILED";
            /** Usage */
            usage?: components["schemas"]["RunUsage"][];
        };
        /** CreateSessionIn */
        CreateSessionIn: {
            /**
             * Id
             * @description Choose the id; generated if absent. A sessions:own token may not choose one (403 session_id_forbidden).
             */
            id?: string | null;
            /** Metadata */
            metadata?: {
                [key: string]: string;
            };
        };
        "delete_memory.input": components["schemas"]["ToolIdInCall"];
        "delete_memory.output": components["schemas"]["ToolMemoriesOut"];
        /** EntityOut */
        EntityOut: {
            /** Count */
            count: number;
            /** Items */
            items: (components["schemas"]["RecordMention"] | components["schemas"]["MemoryMention"] | components["schemas"]["EventMention"])[];
            /** Key */
            key: string;
        };
        /** EntityPage */
        EntityPage: {
            /** Entities */
            entities: components["schemas"]["EntityOut"][];
            /** Next */
            next: string | null;
        };
        /** ErrorBody */
        ErrorBody: {
            /** Code */
            code: string;
            /** Message */
            message: string;
        };
        /** ErrorResponse */
        ErrorResponse: {
            error: components["schemas"]["ErrorBody"];
        };
        /** EventHit */
        EventHit: {
            /** Eventid */
            eventId: string;
            /** Part */
            part: number;
            /** Parts */
            parts: number;
            /** Role */
            role: string;
            /** Score */
            score: number;
            /** Sequence */
            sequence: number;
            /** Sessionid */
            sessionId: string;
            /** Text */
            text: string;
            /** Time */
            time: string;
            /** Turn */
            turn: number;
            /** Turnid */
            turnId: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "history";
        };
        /**
         * EventIn
         * @description One event as a harness appends it.
         */
        EventIn: {
            /** Call Id */
            call_id?: string | null;
            /** Execution Id */
            execution_id?: string | null;
            /** Metadata */
            metadata?: {
                [key: string]: string;
            };
            /**
             * Role
             * @enum {string}
             */
            role: "user" | "assistant" | "tool_result" | "error";
            /** Sequence */
            sequence?: number | null;
            /**
             * Text
             * @default
             */
            text?: string;
            /** Time */
            time?: string | null;
            /** Tool Calls */
            tool_calls?: components["schemas"]["ToolCall"][];
            /** Tool Name */
            tool_name?: string | null;
        };
        /** EventMention */
        EventMention: {
            /** Eventid */
            eventId: string;
            /** Part */
            part: number;
            /** Sessionid */
            sessionId: string;
            /** Time */
            time: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "history";
        };
        /** EveryMessages */
        EveryMessages: {
            /** Messages */
            messages: number;
        };
        /**
         * Execution
         * @description One call of a native tool on a turn, as the transcript records it.
         */
        Execution: {
            /** Caller */
            caller: {
                [key: string]: unknown;
            };
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Error */
            error?: {
                [key: string]: unknown;
            } | null;
            /** Id */
            id: string;
            /** Input */
            input: {
                [key: string]: unknown;
            };
            /** Kind */
            kind?: "runtime" | null;
            /** Output */
            output?: {
                [key: string]: unknown;
            } | null;
            /**
             * Retrieved
             * @default false
             */
            retrieved?: boolean;
            /** Tool */
            tool: string;
            /** Turnid */
            turnId: string;
            /** Usage */
            usage?: {
                [key: string]: unknown;
            }[];
        };
        /** ExportOut */
        ExportOut: {
            /**
             * Format
             * @description Always `agent-memory-bundle`.
             */
            format: string;
            /**
             * Items
             * @description Bundle items, in the order to import them.
             */
            items: {
                [key: string]: unknown;
            }[];
            /**
             * Modelid
             * @description The model this service embeds with (the items' vectors name their own).
             */
            modelId: string | null;
            /**
             * Next
             * @description The cursor of the next page; null on the last.
             */
            next: string | null;
            /**
             * Version
             * @description The bundle format's version.
             */
            version: number;
        };
        /**
         * Extraction
         * @description The post-turn review a committed turn started: where it is, what it read and did.
         */
        Extraction: {
            /**
             * Added
             * @default 0
             */
            added?: number;
            /**
             * Attempts
             * @default 0
             */
            attempts?: number;
            /** Candidates */
            candidates?: number | null;
            /**
             * Deleted
             * @default 0
             */
            deleted?: number;
            /** Dropped */
            dropped?: string[];
            /** Endedat */
            endedAt?: string | null;
            /** Error */
            error?: string | null;
            /** Fromturn */
            fromTurn: number;
            /**
             * Inputtokens
             * @default 0
             */
            inputTokens?: number;
            /**
             * Messages
             * @default 0
             */
            messages?: number;
            /**
             * Modelcalls
             * @default 0
             */
            modelCalls?: number;
            /**
             * Outputtokens
             * @default 0
             */
            outputTokens?: number;
            /**
             * Proposed
             * @default 0
             */
            proposed?: number;
            /**
             * Queuedat
             * Format: date-time
             */
            queuedAt: string;
            /**
             * Replaced
             * @default 0
             */
            replaced?: number;
            /**
             * Runs
             * @default 0
             */
            runs?: number;
            /**
             * Skipped
             * @default 0
             */
            skipped?: number;
            status: components["schemas"]["ExtractionStatus"];
            /** Through */
            through: number;
        };
        /** ExtractionConfig */
        ExtractionConfig: {
            /**
             * Approval
             * @default auto
             * @enum {string}
             */
            approval?: "auto" | "review";
            /**
             * Every
             * @default turn
             */
            every?: "turn" | components["schemas"]["EveryMessages"];
            /** Prompt */
            prompt?: string | null;
        };
        /**
         * ExtractionStatus
         * @enum {string}
         */
        ExtractionStatus: "queued" | "running" | "done" | "failed";
        /**
         * FileMemory
         * @description The current content of one memory path.
         */
        FileMemory: {
            /** Agentid */
            agentId: string;
            /** Bytes */
            bytes: number;
            /** Content */
            content: string;
            /** Contentsha256 */
            contentSha256: string;
            /** Description */
            description?: string | null;
            /** Path */
            path: string;
            /**
             * Updatedat
             * Format: date-time
             */
            updatedAt: string;
            /** Updatedby */
            updatedBy: string;
            /** Version */
            version: number;
        };
        /**
         * FileVersion
         * @description One change: who made it, and the content it left (None for a delete).
         */
        FileVersion: {
            /** Actor */
            actor: string;
            /** Agentid */
            agentId: string;
            /**
             * At
             * Format: date-time
             */
            at: string;
            /** Content */
            content?: string | null;
            /** Contentsha256 */
            contentSha256?: string | null;
            /** Frompath */
            fromPath?: string | null;
            /** Id */
            id: string;
            /**
             * Operation
             * @enum {string}
             */
            operation: "create" | "update" | "delete" | "rename";
            /** Path */
            path: string;
            /** Sessionid */
            sessionId?: string | null;
            /** Triggerrunid */
            triggerRunId?: string | null;
            /** Turnid */
            turnId?: string | null;
            /** Version */
            version: number;
        };
        /** ForkIn */
        ForkIn: {
            /**
             * Id
             * @description The new agent's id, path-like (`teams/web/releases-copy`).
             */
            id: string;
        };
        /** Harness */
        Harness: {
            history?: components["schemas"]["HistoryConfig"];
            memory?: components["schemas"]["MemoryConfig"];
        } & {
            [key: string]: unknown;
        };
        /** Health */
        Health: {
            /**
             * Status
             * @constant
             */
            status: "ok";
            /** Version */
            version: string;
        };
        /** HistoryConfig */
        HistoryConfig: {
            /**
             * Entity Links
             * @default false
             */
            entity_links?: boolean;
            /** Fact Keys */
            fact_keys?: boolean | null;
            /** Index */
            index?: ("messages" | "messages_and_tools") | null;
            /**
             * Search
             * @default session
             * @enum {string}
             */
            search?: "session" | "agent";
        };
        /** HistoryEvent */
        HistoryEvent: {
            /** Agentid */
            agentId: string;
            /** Callid */
            callId?: string | null;
            /** Executionid */
            executionId?: string | null;
            /** Id */
            id: string;
            /** Metadata */
            metadata?: {
                [key: string]: string;
            };
            /**
             * Preview
             * @default false
             */
            preview?: boolean;
            /**
             * Role
             * @enum {string}
             */
            role: "user" | "assistant" | "tool_result" | "error";
            /**
             * Searchable
             * @default true
             */
            searchable?: boolean;
            /** Sequence */
            sequence: number;
            /** Sessionid */
            sessionId: string;
            /** Text */
            text: string;
            /**
             * Time
             * Format: date-time
             */
            time: string;
            /** Toolcalls */
            toolCalls?: components["schemas"]["ToolCall"][];
            /** Toolname */
            toolName?: string | null;
            /** Turn */
            turn: number;
            /** Turnid */
            turnId: string;
        };
        /**
         * HistoryHit
         * @description An event found by a search: the text of its best part.
         */
        HistoryHit: {
            /**
             * Call
             * @description The call a tool result answers.
             */
            call?: string | null;
            /** Execution */
            execution: string | null;
            /** Id */
            id: string;
            /** Part */
            part: number;
            /** Parts */
            parts: number;
            /** Role */
            role: string;
            /** Sequence */
            sequence: number;
            /** Session */
            session: string;
            /** Text */
            text: string;
            /** Time */
            time: string;
            /** Turn */
            turn: number;
            /** Turnid */
            turnId: string;
        };
        /** HistoryPage */
        HistoryPage: {
            /** Events */
            events: components["schemas"]["HistoryEvent"][];
            /** Next */
            next: string | null;
        };
        /** HistorySearchPage */
        HistorySearchPage: {
            /** Events */
            events: components["schemas"]["HistoryHit"][];
            /** Next */
            next: string | null;
        };
        /** HTTPValidationError */
        HTTPValidationError: {
            /** Detail */
            detail?: components["schemas"]["ValidationError"][];
        };
        /** ImportIn */
        ImportIn: {
            /**
             * Items
             * @description Bundle items of this agent, in the bundle's order (docs/export-import.md).
             */
            items: {
                [key: string]: unknown;
            }[];
        };
        /** ImportOut */
        ImportOut: {
            /**
             * Kept
             * @description Items stored already: nothing changed for them.
             */
            kept: number;
            /**
             * Vectorsqueued
             * @description Search documents queued to be embedded with this service's model.
             */
            vectorsQueued: number;
            /**
             * Vectorsreused
             * @description Search documents given the bundle's vector (same model as this service).
             */
            vectorsReused: number;
            /**
             * Written
             * @description Items written by this request.
             */
            written: number;
        };
        /**
         * IndexStatus
         * @description How far the agent's search index has caught up with what was written.
         */
        IndexStatus: {
            /**
             * Embeddingmodel
             * @description The model vectors are made with.
             */
            embeddingModel: string | null;
            /**
             * Pendingvectors
             * @description Documents found by words but not yet by meaning: the background embedder adds their vectors (embedded shape). null where the index cannot tell (the cloud's stream indexer embeds as it indexes).
             */
            pendingVectors: number | null;
        };
        /** IngestIn */
        IngestIn: {
            /** Messages */
            messages: {
                [key: string]: unknown;
            }[];
        };
        /** IngestOut */
        IngestOut: {
            /** Alreadyapplied */
            alreadyApplied: number;
            /** Applied */
            applied: number;
            /** Failed */
            failed: number;
            /** Results */
            results: components["schemas"]["IngestResult"][];
        };
        /**
         * IngestResult
         * @description One ingested message's outcome, in its place in the batch.
         */
        IngestResult: {
            /** Error */
            error?: {
                [key: string]: unknown;
            } | null;
            /** Status */
            status: ("applied" | "already applied") | "failed";
        };
        /**
         * InstructionsOut
         * @description The memory part of a turn's instructions, the pinned records it lists, and the native
         *     tools the turn offers, their schemas narrowed to its manifest (domain/tools/offer.py).
         */
        InstructionsOut: {
            /** Instructions */
            instructions: string;
            /** Pinned */
            pinned: components["schemas"]["PinnedLine"][];
            /** Tools */
            tools?: components["schemas"]["OfferedTool"][];
        };
        JsonValue: unknown;
        /**
         * KeptSecret
         * @description What looks like a secret in an appended event: where it is, and whether it was kept.
         */
        KeptSecret: {
            /** Field */
            field: string;
            /** Kind */
            kind: string;
            /** Line */
            line: number;
            /**
             * Redacted
             * @description Replaced by [redacted:<kind>] (block) or kept (warn).
             */
            redacted: boolean;
            /** Sequence */
            sequence: number;
        };
        /** Label */
        Label: {
            /**
             * Description
             * @default
             */
            description?: string;
            /** Number */
            number: number;
        };
        /**
         * Manifest
         * @description One version of an agent's configuration.
         */
        Manifest: {
            harness?: components["schemas"]["Harness"];
        } & {
            [key: string]: unknown;
        };
        /**
         * ManifestDocument
         * @description A manifest as a caller saves it, as the API documents it: `harness`, or `manifest` (the
         *     name of a named manifest to follow), and no other top-level key. `check_saved_keys` holds it
         *     to that once the caller is known, so a caller without a token hears 401 before any word about
         *     the body.
         */
        ManifestDocument: {
            harness?: components["schemas"]["Harness"];
            /** @description The name of a named manifest (PUT /v1/agent-manifests/{name}) for the agent to follow, in place of a harness of its own. */
            manifest?: string;
        };
        /** ManifestVersion */
        ManifestVersion: {
            /** Agentid */
            agentId: string;
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Manifest */
            manifest: {
                [key: string]: unknown;
            };
            /** Version */
            version: number;
        };
        /** ManifestVersionList */
        ManifestVersionList: {
            /** Next */
            next: string | null;
            /** Versions */
            versions: components["schemas"]["ManifestVersion"][];
        };
        "memory.input": components["schemas"]["ToolMemoryIn"];
        "memory.output": components["schemas"]["ToolMemoryOut"];
        /** MemoryConfig */
        MemoryConfig: {
            /**
             * Access
             * @default read_write
             * @enum {string}
             */
            access?: "read_write" | "read_only";
            consolidation?: components["schemas"]["ConsolidationConfig"] | null;
            /**
             * Enabled
             * @default false
             */
            enabled?: boolean;
            /** Expire After */
            expire_after?: {
                [key: string]: string;
            };
            extraction?: components["schemas"]["ExtractionConfig"];
            /**
             * Instructions
             * @default
             */
            instructions?: string;
            /** Kinds */
            kinds?: string[];
            /** Labels */
            labels?: {
                [key: string]: components["schemas"]["Label"];
            };
            pinned?: components["schemas"]["PinnedConfig"] | null;
            scope?: components["schemas"]["ScopeConfig"];
            search?: components["schemas"]["SearchConfig"];
            /**
             * Secrets
             * @default block
             * @enum {string}
             */
            secrets?: "off" | "warn" | "block";
            /** Tools */
            tools?: ("add_memory" | "read_memory" | "delete_memory" | "search_memory")[];
        };
        /** MemoryHit */
        MemoryHit: {
            /** Contentsha256 */
            contentSha256: string;
            /** Description */
            description: string | null;
            /** Path */
            path: string;
            /** Score */
            score: number;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "memory";
            /** Updatedat */
            updatedAt: string;
            /** Version */
            version: number;
        };
        /** MemoryIndex */
        MemoryIndex: {
            /**
             * Index
             * @description A line per memory, newest first.
             */
            index: string;
        };
        /** MemoryList */
        MemoryList: {
            /** Memories */
            memories: components["schemas"]["MemorySummary"][];
            /** Next */
            next: string | null;
        };
        /** MemoryMention */
        MemoryMention: {
            /** Path */
            path: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "memory";
            /** Updatedat */
            updatedAt: string;
        };
        /**
         * MemorySummary
         * @description A memory as listings give it: everything but its content.
         */
        MemorySummary: {
            /** Agentid */
            agentId: string;
            /** Bytes */
            bytes: number;
            /** Contentsha256 */
            contentSha256: string;
            /** Description */
            description?: string | null;
            /** Path */
            path: string;
            /**
             * Updatedat
             * Format: date-time
             */
            updatedAt: string;
            /** Updatedby */
            updatedBy: string;
            /** Version */
            version: number;
        };
        /**
         * MemoryUpdate
         * @description What one call of a turn changed, kept with the committed turn and published as its
         *     `memory.updated`: the call's effect id and its changes, in the order it made them.
         */
        MemoryUpdate: {
            /** Changes */
            changes: components["schemas"]["Change"][];
            /** Effectid */
            effectId: string;
        };
        /** MemoryVersionList */
        MemoryVersionList: {
            /** Next */
            next: string | null;
            /** Versions */
            versions: components["schemas"]["VersionSummary"][];
        };
        /**
         * NamedManifest
         * @description The current version of a named manifest.
         */
        NamedManifest: {
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Manifest */
            manifest: {
                [key: string]: unknown;
            };
            /** Name */
            name: string;
            /**
             * Updatedat
             * Format: date-time
             */
            updatedAt: string;
            /** Version */
            version: number;
        };
        /** NamedManifestList */
        NamedManifestList: {
            /** Manifests */
            manifests: components["schemas"]["NamedManifest"][];
            /** Next */
            next: string | null;
        };
        /** NamedManifestVersion */
        NamedManifestVersion: {
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Manifest */
            manifest: {
                [key: string]: unknown;
            };
            /** Name */
            name: string;
            /** Version */
            version: number;
        };
        /** NamedManifestVersionList */
        NamedManifestVersionList: {
            /** Next */
            next: string | null;
            /** Versions */
            versions: components["schemas"]["NamedManifestVersion"][];
        };
        /**
         * OfferedTool
         * @description A native tool as a model is offered it (domain/tools/offer.py).
         */
        OfferedTool: {
            /** Description */
            description: string;
            /** Inputschema */
            inputSchema: {
                [key: string]: unknown;
            };
            /** Name */
            name: string;
            /** Writes */
            writes: boolean;
        };
        /** OfferedTools */
        OfferedTools: {
            /** Tools */
            tools: components["schemas"]["OfferedTool"][];
        };
        /** PinnedConfig */
        PinnedConfig: {
            /** Max Tokens */
            max_tokens: number;
        };
        /**
         * PinnedLine
         * @description A pinned record the instructions list.
         */
        PinnedLine: {
            /** Id */
            id: string;
            /** Summary */
            summary: string;
            /** Version */
            version: number;
        };
        /**
         * PlannedAction
         * @description One change of the plan: what happens to `record_id`, and why.
         */
        PlannedAction: {
            /**
             * Action
             * @enum {string}
             */
            action: "merge" | "supersede" | "expire" | "unpin";
            /** Keptid */
            keptId?: string | null;
            /** Reason */
            reason: string;
            /** Recordid */
            recordId: string;
            /** Skipped */
            skipped?: string | null;
            /** Version */
            version: number;
        };
        /**
         * ProposedWrite
         * @description What a pending record proposes: a new memory (`add`), a new memory in place of `target`
         *     (`replace`), or the end of `target` (`delete`); `targetVersion` is the target's version
         *     when the review proposed it, so an approval can tell whether the target moved since.
         */
        ProposedWrite: {
            /**
             * Action
             * @enum {string}
             */
            action: "add" | "replace" | "delete";
            /** Target */
            target?: string | null;
            /** Targetversion */
            targetVersion?: number | null;
        };
        /**
         * Provenance
         * @description Who made a change: the turn's execution and invocation, or an app through the API.
         */
        Provenance: {
            /** Actor */
            actor: string;
            /** Execution */
            execution?: string | null;
            /** Invocation */
            invocation?: string | null;
            /** Manifestversion */
            manifestVersion?: number | null;
            /** Sessionid */
            sessionId?: string | null;
            /** Sources */
            sources?: string[];
            /** Triggerrunid */
            triggerRunId?: string | null;
            /** Turnid */
            turnId?: string | null;
        };
        /** PutMemoryIn */
        PutMemoryIn: {
            /** Content */
            content: string;
            /**
             * Contentsha256
             * @description Write only while the memory has this content; "" only while no memory has the path.
             */
            contentSha256?: string | null;
        };
        /**
         * PutMemoryOut
         * @description The memory as the write left it, with what looked like a secret in it (under `warn`).
         */
        PutMemoryOut: {
            /** Agentid */
            agentId: string;
            /** Bytes */
            bytes: number;
            /** Content */
            content: string;
            /** Contentsha256 */
            contentSha256: string;
            /** Description */
            description?: string | null;
            /** Path */
            path: string;
            /**
             * Updatedat
             * Format: date-time
             */
            updatedAt: string;
            /** Updatedby */
            updatedBy: string;
            /** Version */
            version: number;
            /** Warnings */
            warnings?: components["schemas"]["SecretWarning"][] | null;
        };
        "read_memory.input": components["schemas"]["ToolIdInCall"];
        "read_memory.output": components["schemas"]["ToolSourcesOut"];
        /**
         * RecallOut
         * @description Recall: the records found, and the same as a fenced memory block for the model.
         */
        RecallOut: {
            /** Records */
            records: components["schemas"]["Record"][];
            /** Text */
            text: string;
            /**
             * Type
             * @default memory
             * @constant
             */
            type?: "memory";
        };
        /** Record */
        Record: {
            /** Agentid */
            agentId: string;
            /** Content */
            content?: string | null;
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Expiresat */
            expiresAt?: string | null;
            /** Id */
            id: string;
            /** Kind */
            kind: string;
            /** Labels */
            labels?: {
                [key: string]: string;
            };
            /**
             * Pinned
             * @default false
             */
            pinned?: boolean;
            /**
             * Preview
             * @default false
             */
            preview?: boolean;
            proposal?: components["schemas"]["ProposedWrite"] | null;
            provenance: components["schemas"]["Provenance"];
            /** Replacedby */
            replacedBy?: string | null;
            /** Replaces */
            replaces?: string | null;
            /**
             * Scope
             * @enum {string}
             */
            scope: "session" | "agent";
            /** Sessionid */
            sessionId?: string | null;
            /** @default ACTIVE */
            status?: components["schemas"]["RecordStatus"];
            /** Summary */
            summary: string;
            /**
             * Updatedat
             * Format: date-time
             */
            updatedAt: string;
            /**
             * Version
             * @default 1
             */
            version?: number;
        };
        /**
         * RecordExpiryIn
         * @description When the record expires; null clears it (the record no longer expires).
         */
        RecordExpiryIn: {
            /**
             * Expiresat
             * @description An ISO 8601 date-time with its offset (2026-01-31T12:00:00Z), or null.
             */
            expiresAt: string | null;
        };
        /** RecordHit */
        RecordHit: {
            /** Id */
            id: string;
            /** Kind */
            kind: string;
            /** Labels */
            labels: {
                [key: string]: string;
            };
            /** Scope */
            scope: string;
            /** Score */
            score: number;
            /** Sessionid */
            sessionId: string | null;
            /** Summary */
            summary: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "record";
            /** Version */
            version: number;
        };
        /** RecordList */
        RecordList: {
            /** Next */
            next: string | null;
            /** Records */
            records: components["schemas"]["Record"][];
        };
        /** RecordMention */
        RecordMention: {
            /** Createdat */
            createdAt: string;
            /** Id */
            id: string;
            /** Sessionid */
            sessionId: string | null;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "record";
        };
        /**
         * RecordOperation
         * @enum {string}
         */
        RecordOperation: "create" | "supersede" | "delete" | "set_expiry" | "expire" | "approve" | "reject" | "unpin" | "restate";
        /**
         * RecordStatus
         * @enum {string}
         */
        RecordStatus: "ACTIVE" | "SUPERSEDED" | "DELETED" | "EXPIRED" | "PENDING" | "REJECTED";
        /**
         * RecordVersion
         * @description One version of a record: the whole record as that change left it, and who changed it.
         */
        RecordVersion: {
            /**
             * At
             * Format: date-time
             */
            at: string;
            changedBy: components["schemas"]["Provenance"];
            operation: components["schemas"]["RecordOperation"];
            record: components["schemas"]["Record"];
        };
        /** RecordVersionList */
        RecordVersionList: {
            /** Next */
            next: string | null;
            /** Versions */
            versions: components["schemas"]["RecordVersion"][];
        };
        /**
         * RerankConfig
         * @description A second stage over the first `top` hits of a search: a model scores each against the
         *     query and they are put in its order; hits past `top` follow in their first-stage order.
         */
        RerankConfig: {
            /** Model */
            model: string;
            /**
             * Provider
             * @enum {string}
             */
            provider: "bedrock" | "http" | "onnx";
            /**
             * Top
             * @default 20
             */
            top?: number;
        };
        /** ResponseValidationError */
        ResponseValidationError: {
            /** Detail */
            detail?: components["schemas"]["ValidationError"][];
        };
        /**
         * RunUsage
         * @description One model call of the run: purpose `memory` (a model deciding) or `embed`.
         */
        RunUsage: {
            /** Inputtokens */
            inputTokens: number;
            /** Modelid */
            modelId: string;
            /**
             * Outputtokens
             * @default 0
             */
            outputTokens?: number;
            /** Purpose */
            purpose: string;
        };
        /** ScopeConfig */
        ScopeConfig: {
            /** Read */
            read?: ("session" | "agent")[];
            /** Write */
            write?: ("session" | "agent")[];
        };
        "search_history.input": components["schemas"]["ToolSearchHistoryInCall"];
        "search_history.output": components["schemas"]["ToolHistoryOut"];
        "search_memory.input": components["schemas"]["ToolSearchMemoryInCall"];
        "search_memory.output": components["schemas"]["ToolRecordsOut"];
        /** SearchConfig */
        SearchConfig: {
            /**
             * Max Results
             * @default 5
             */
            max_results?: number;
            /** Min Score */
            min_score?: number | null;
            /**
             * Mode
             * @default hybrid
             * @enum {string}
             */
            mode?: "hybrid" | "lexical" | "vector";
            rerank?: components["schemas"]["RerankConfig"] | null;
        };
        /** SearchHits */
        SearchHits: {
            /** Hits */
            hits: (components["schemas"]["RecordHit"] | components["schemas"]["MemoryHit"] | components["schemas"]["EventHit"])[];
        };
        /**
         * SecretWarning
         * @description What looks like a secret in a write that `harness.memory.secrets: warn` kept.
         */
        SecretWarning: {
            /** Code */
            code: string;
            /** Field */
            field: string;
            /** Kind */
            kind: string;
            /** Line */
            line: number;
        };
        /** Session */
        Session: {
            /** Agentid */
            agentId: string;
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Id */
            id: string;
            /** Metadata */
            metadata?: {
                [key: string]: string;
            };
            /** Owner */
            owner?: string | null;
            /**
             * Reviewedthrough
             * @default 0
             */
            reviewedThrough?: number;
            /**
             * Turns
             * @default 0
             */
            turns?: number;
        };
        /** SessionList */
        SessionList: {
            /** Next */
            next: string | null;
            /** Sessions */
            sessions: components["schemas"]["Session"][];
        };
        /** TenantLimitsIn */
        TenantLimitsIn: {
            /**
             * Expiredretention
             * @description How long an expired record stays readable before it is purged with its versions: an ISO 8601 duration of weeks, days, hours, minutes or seconds (P30D by default). Applies to expiries set from then on.
             */
            expiredRetention?: string | null;
            /**
             * Memoriesperagent
             * @description Memories an agent may keep (1-1000000).
             */
            memoriesPerAgent?: number | null;
            /**
             * Memorybytes
             * @description Bytes a memory may hold (1-262144).
             */
            memoryBytes?: number | null;
        };
        /**
         * TenantLimitsOut
         * @description The file memory limits that hold for the tenant.
         */
        TenantLimitsOut: {
            /**
             * Expiredretention
             * @description How long an expired record stays readable before it is purged with its versions (ISO 8601 duration).
             */
            expiredRetention: string;
            /** Memoriesperagent */
            memoriesPerAgent: number;
            /** Memorybytes */
            memoryBytes: number;
            /** Memoryindexbytes */
            memoryIndexBytes: number;
            /** Memoryindexlines */
            memoryIndexLines: number;
        };
        /**
         * TenantReset
         * @description What a reset did: agents it deleted, and whether none is left (else: ask again).
         */
        TenantReset: {
            /** Deletedagents */
            deletedAgents: number;
            /** Done */
            done: boolean;
            /**
             * Limitsreset
             * @default false
             */
            limitsReset?: boolean;
        };
        /** AddMemoryInCall */
        ToolAddMemoryInCall: {
            caller: components["schemas"]["ToolCaller"];
            /**
             * Content
             * @default null
             */
            content?: string | null;
            /**
             * Kind
             * @default null
             */
            kind?: string | null;
            /** Labels */
            labels?: {
                [key: string]: string;
            };
            /**
             * Pinned
             * @default false
             */
            pinned?: boolean;
            /**
             * Replaces
             * @default null
             */
            replaces?: string | null;
            /**
             * Scope
             * @default null
             */
            scope?: string | null;
            /** Summary */
            summary: string;
        };
        /** ToolCall */
        ToolCall: {
            /** Call Id */
            call_id?: string | null;
            /** Name */
            name: string;
        };
        /**
         * Caller
         * @description Who makes a tool call: the session's own agent, or a reader (helper, program, tool).
         */
        ToolCaller: {
            /**
             * Execution
             * @default null
             */
            execution?: string | null;
            /**
             * Invocation
             * @default null
             */
            invocation?: string | null;
            /**
             * Role
             * @enum {string}
             */
            role: "agent" | "helper" | "programmatic" | "agent_as_tool";
        };
        /**
         * ToolCallOut
         * @description A tool call's answer; the document names each tool's output (openapi_tools).
         */
        ToolCallOut: {
            /** Output */
            output: {
                [key: string]: components["schemas"]["JsonValue"];
            };
        };
        /** CreateIn */
        ToolCreateIn: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            command: "create";
            /** File Text */
            file_text: string;
            /** Path */
            path: string;
        };
        /**
         * DeletedRef
         * @description A deleted record a replay names when it can no longer read the record itself.
         */
        ToolDeletedRef: {
            /** Id */
            id: string;
            /**
             * Status
             * @default DELETED
             * @constant
             */
            status?: "DELETED";
        };
        /** DeleteIn */
        ToolDeleteIn: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            command: "delete";
            /** Path */
            path: string;
        };
        /**
         * HistoryHit
         * @description An event found by a search: the text of its best part.
         */
        ToolHistoryHit: {
            /**
             * Call
             * @description The call a tool result answers.
             * @default null
             */
            call?: string | null;
            /** Execution */
            execution: string | null;
            /** Id */
            id: string;
            /** Part */
            part: number;
            /** Parts */
            parts: number;
            /** Role */
            role: string;
            /** Sequence */
            sequence: number;
            /** Session */
            session: string;
            /** Text */
            text: string;
            /** Time */
            time: string;
            /** Turn */
            turn: number;
            /** Turnid */
            turnId: string;
        };
        /**
         * HistoryOut
         * @description search_history: the events (or their parts) found, and a cursor.
         */
        ToolHistoryOut: {
            /** Events */
            events: components["schemas"]["ToolHistoryHit"][];
            /**
             * Next
             * @default null
             */
            next?: string | null;
        };
        /** IdInCall */
        ToolIdInCall: {
            caller: components["schemas"]["ToolCaller"];
            /** Id */
            id: string;
        };
        /** InsertIn */
        ToolInsertIn: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            command: "insert";
            /** Insert Line */
            insert_line: number;
            /** Insert Text */
            insert_text: string;
            /** Path */
            path: string;
        };
        /**
         * MemoriesOut
         * @description add_memory and delete_memory: the record as staged (or as an earlier attempt staged it).
         */
        ToolMemoriesOut: {
            /** Memories */
            memories: (components["schemas"]["ToolRecord"] | components["schemas"]["ToolDeletedRef"])[];
            /**
             * Warnings
             * @default null
             */
            warnings?: {
                [key: string]: unknown;
            }[] | null;
        };
        /**
         * MemoryIn
         * @description One call of the memory tool: one of its six commands, told apart by `command`.
         */
        ToolMemoryIn: components["schemas"]["ToolViewIn"] | components["schemas"]["ToolCreateIn"] | components["schemas"]["ToolStrReplaceIn"] | components["schemas"]["ToolInsertIn"] | components["schemas"]["ToolDeleteIn"] | components["schemas"]["ToolRenameIn"];
        /**
         * MemoryOut
         * @description The memory tool: the reference's result text, and any secret warnings.
         */
        ToolMemoryOut: {
            /** Result */
            result: string;
            /**
             * Warnings
             * @default null
             */
            warnings?: {
                [key: string]: unknown;
            }[] | null;
        };
        /**
         * ProposedWrite
         * @description What a pending record proposes: a new memory (`add`), a new memory in place of `target`
         *     (`replace`), or the end of `target` (`delete`); `targetVersion` is the target's version
         *     when the review proposed it, so an approval can tell whether the target moved since.
         */
        ToolProposedWrite: {
            /**
             * Action
             * @enum {string}
             */
            action: "add" | "replace" | "delete";
            /**
             * Target
             * @default null
             */
            target?: string | null;
            /**
             * Targetversion
             * @default null
             */
            targetVersion?: number | null;
        };
        /**
         * Provenance
         * @description Who made a change: the turn's execution and invocation, or an app through the API.
         */
        ToolProvenance: {
            /** Actor */
            actor: string;
            /**
             * Execution
             * @default null
             */
            execution?: string | null;
            /**
             * Invocation
             * @default null
             */
            invocation?: string | null;
            /**
             * Manifestversion
             * @default null
             */
            manifestVersion?: number | null;
            /**
             * Sessionid
             * @default null
             */
            sessionId?: string | null;
            /** Sources */
            sources?: string[];
            /**
             * Triggerrunid
             * @default null
             */
            triggerRunId?: string | null;
            /**
             * Turnid
             * @default null
             */
            turnId?: string | null;
        };
        /**
         * RecallIn
         * @description The turn's current context (and who asks); other fields are ignored, as they always were.
         */
        ToolRecallIn: {
            /**
             * Caller
             * @default null
             */
            caller?: unknown;
            /** Context */
            context: string;
        };
        /**
         * RecallOut
         * @description Recall: the records found, and the same as a fenced memory block for the model.
         */
        ToolRecallOut: {
            /** Records */
            records: components["schemas"]["ToolRecord"][];
            /** Text */
            text: string;
            /**
             * Type
             * @default memory
             * @constant
             */
            type?: "memory";
        };
        /** Record */
        ToolRecord: {
            /** Agentid */
            agentId: string;
            /**
             * Content
             * @default null
             */
            content?: string | null;
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /**
             * Expiresat
             * @default null
             */
            expiresAt?: string | null;
            /** Id */
            id: string;
            /** Kind */
            kind: string;
            /** Labels */
            labels?: {
                [key: string]: string;
            };
            /**
             * Pinned
             * @default false
             */
            pinned?: boolean;
            /**
             * Preview
             * @default false
             */
            preview?: boolean;
            /** @default null */
            proposal?: components["schemas"]["ToolProposedWrite"] | null;
            provenance: components["schemas"]["ToolProvenance"];
            /**
             * Replacedby
             * @default null
             */
            replacedBy?: string | null;
            /**
             * Replaces
             * @default null
             */
            replaces?: string | null;
            /**
             * Scope
             * @enum {string}
             */
            scope: "session" | "agent";
            /**
             * Sessionid
             * @default null
             */
            sessionId?: string | null;
            /** @default ACTIVE */
            status?: components["schemas"]["ToolRecordStatus"];
            /** Summary */
            summary: string;
            /**
             * Updatedat
             * Format: date-time
             */
            updatedAt: string;
            /**
             * Version
             * @default 1
             */
            version?: number;
        };
        /**
         * RecordsOut
         * @description search_memory: the records found, a cursor, and ids asked for that were not found.
         */
        ToolRecordsOut: {
            /**
             * Next
             * @default null
             */
            next?: string | null;
            /**
             * Notfound
             * @default null
             */
            notFound?: string[] | null;
            /** Records */
            records: components["schemas"]["ToolRecord"][];
        };
        /**
         * RecordStatus
         * @enum {string}
         */
        ToolRecordStatus: "ACTIVE" | "SUPERSEDED" | "DELETED" | "EXPIRED" | "PENDING" | "REJECTED";
        /** RenameIn */
        ToolRenameIn: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            command: "rename";
            /** New Path */
            new_path: string;
            /** Old Path */
            old_path: string;
        };
        /** SearchHistoryInCall */
        ToolSearchHistoryInCall: {
            caller: components["schemas"]["ToolCaller"];
            /**
             * Cursor
             * @default null
             */
            cursor?: string | null;
            /**
             * Ids
             * @default null
             */
            ids?: string[] | null;
            /**
             * Limit
             * @default 5
             */
            limit?: number;
            /**
             * Query
             * @default null
             */
            query?: string | null;
        };
        /** SearchMemoryInCall */
        ToolSearchMemoryInCall: {
            /**
             * After
             * @default null
             */
            after?: string | null;
            caller: components["schemas"]["ToolCaller"];
            /**
             * Ids
             * @default null
             */
            ids?: string[] | null;
            /**
             * Kind
             * @default null
             */
            kind?: string | string[] | null;
            /** Labels */
            labels?: {
                [key: string]: string;
            };
            /**
             * Limit
             * @default null
             */
            limit?: number | null;
            /**
             * Query
             * @default null
             */
            query?: string | null;
        };
        /**
         * SourcesOut
         * @description read_memory: the record, whatever its status.
         */
        ToolSourcesOut: {
            /** Sources */
            sources: components["schemas"]["ToolRecord"][];
        };
        /** StrReplaceIn */
        ToolStrReplaceIn: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            command: "str_replace";
            /**
             * New Str
             * @default
             */
            new_str?: string | null;
            /** Old Str */
            old_str: string;
            /** Path */
            path: string;
        };
        /** ViewIn */
        ToolViewIn: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            command: "view";
            /** Path */
            path: string;
            /**
             * View Range
             * @default null
             */
            view_range?: [
                number,
                number
            ] | null;
        };
        /** Turn */
        Turn: {
            /** Agentid */
            agentId: string;
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Endedat */
            endedAt?: string | null;
            extraction?: components["schemas"]["Extraction"] | null;
            /** Id */
            id: string;
            /** Manifestversion */
            manifestVersion: number;
            /** Memoryupdates */
            memoryUpdates?: components["schemas"]["MemoryUpdate"][];
            /**
             * Preview
             * @default false
             */
            preview?: boolean;
            /** Replayof */
            replayOf?: string | null;
            /**
             * Reviewed
             * @default false
             */
            reviewed?: boolean;
            /** Sequence */
            sequence: number;
            /** Sessionid */
            sessionId: string | null;
            /**
             * Startedby
             * @default app
             * @enum {string}
             */
            startedBy?: "person" | "app" | "trigger" | "wake";
            /** @default open */
            status?: components["schemas"]["TurnStatus"];
            /** Triggerrunid */
            triggerRunId?: string | null;
        };
        /** TurnList */
        TurnList: {
            /** Next */
            next: string | null;
            /** Turns */
            turns: components["schemas"]["Turn"][];
        };
        /**
         * TurnStatus
         * @enum {string}
         */
        TurnStatus: "open" | "committed" | "rolled_back";
        /**
         * TurnWithWrites
         * @description The turn detail's shape: the turn, the memories it wrote (live and preview), its
         *     executions and its model usage.
         */
        TurnWithWrites: {
            /** Agentid */
            agentId: string;
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Endedat */
            endedAt?: string | null;
            /** Executions */
            executions: components["schemas"]["Execution"][];
            extraction?: components["schemas"]["Extraction"] | null;
            /** Id */
            id: string;
            /** Manifestversion */
            manifestVersion: number;
            /** Memories */
            memories: components["schemas"]["Record"][];
            /** Memoryupdates */
            memoryUpdates?: components["schemas"]["MemoryUpdate"][];
            /**
             * Pendingvectors
             * @description What the turn wrote that is found by words but not yet by meaning; null where that cannot be told.
             */
            pendingVectors: number | null;
            /**
             * Preview
             * @default false
             */
            preview?: boolean;
            /** Replayof */
            replayOf?: string | null;
            /**
             * Reviewed
             * @default false
             */
            reviewed?: boolean;
            /** Sequence */
            sequence: number;
            /** Sessionid */
            sessionId: string | null;
            /**
             * Startedby
             * @default app
             * @enum {string}
             */
            startedBy?: "person" | "app" | "trigger" | "wake";
            /** @default open */
            status?: components["schemas"]["TurnStatus"];
            /** Triggerrunid */
            triggerRunId?: string | null;
            /** Usage */
            usage: components["schemas"]["Usage"][];
        };
        /** Usage */
        Usage: {
            /** Agentid */
            agentId: string;
            /**
             * At
             * Format: date-time
             */
            at: string;
            /** Documents */
            documents?: number | null;
            /** Executionid */
            executionId?: string | null;
            /** Id */
            id: string;
            /** Inputtokens */
            inputTokens: number;
            /** Latencyms */
            latencyMs?: number | null;
            /** Modelid */
            modelId: string;
            /**
             * Outputtokens
             * @default 0
             */
            outputTokens?: number;
            /**
             * Purpose
             * @description embed, memory, search (a rerank) or entities (the entity model)
             */
            purpose: string;
            /** Sessionid */
            sessionId?: string | null;
            /** Turnid */
            turnId?: string | null;
        };
        /**
         * UsagePage
         * @description An agent's model usage, newest first, a cursor, and its totals.
         */
        UsagePage: {
            /** Next */
            next: string | null;
            /** Totals */
            totals: components["schemas"]["UsageTotal"][];
            /** Usage */
            usage: components["schemas"]["Usage"][];
        };
        /** UsageTotal */
        UsageTotal: {
            /** Calls */
            calls: number;
            /** Inputtokens */
            inputTokens: number;
            /** Modelid */
            modelId: string;
            /** Outputtokens */
            outputTokens: number;
            /** Purpose */
            purpose: string;
        };
        /** ValidationError */
        ValidationError: {
            /** Location */
            loc: (string | number)[];
            /** Error Type */
            type: string;
        };
        /**
         * VersionSummary
         * @description A version as the listing gives it: without the content it left.
         */
        VersionSummary: {
            /** Actor */
            actor: string;
            /** Agentid */
            agentId: string;
            /**
             * At
             * Format: date-time
             */
            at: string;
            /** Contentsha256 */
            contentSha256?: string | null;
            /** Frompath */
            fromPath?: string | null;
            /** Id */
            id: string;
            /**
             * Operation
             * @enum {string}
             */
            operation: "create" | "update" | "delete" | "rename";
            /** Path */
            path: string;
            /** Sessionid */
            sessionId?: string | null;
            /** Triggerrunid */
            triggerRunId?: string | null;
            /** Turnid */
            turnId?: string | null;
            /** Version */
            version: number;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
};
export type $defs = Record<string, never>;
export interface operations {
    health_healthz_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    list_manifests_v1_agent_manifests_get: {
        parameters: {
            query?: {
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                /** @description Page size, 1-200 (default 50). */
                limit?: number | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamedManifestList"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_manifest_v1_agent_manifests__manifest_name__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The manifest's name: 1-128 of a-z 0-9 . _ -. */
                manifest_name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamedManifest"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    put_manifest_v1_agent_manifests__manifest_name__put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The manifest's name: 1-128 of a-z 0-9 . _ -. */
                manifest_name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Manifest"];
            };
        };
        responses: {
            /** @description Replaced. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamedManifest"];
                };
            };
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamedManifest"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    delete_manifest_v1_agent_manifests__manifest_name__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The manifest's name: 1-128 of a-z 0-9 . _ -. */
                manifest_name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no body. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_versions_v1_agent_manifests__manifest_name__versions_get: {
        parameters: {
            query?: {
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                /** @description Page size, 1-200 (default 50). */
                limit?: number | null;
            };
            header?: never;
            path: {
                /** @description The manifest's name: 1-128 of a-z 0-9 . _ -. */
                manifest_name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamedManifestVersionList"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_version_v1_agent_manifests__manifest_name__versions__version__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The manifest's name: 1-128 of a-z 0-9 . _ -. */
                manifest_name: string;
                version: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamedManifestVersion"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_agents_v1_agents_get: {
        parameters: {
            query?: {
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                /** @description Page size, 1-200 (default 50). */
                limit?: number | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentList"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_agent_v1_agents__agent_id__get: {
        parameters: {
            query?: {
                /** @description Answer as things stood at this instant, from the versions kept: an ISO 8601 date-time with its offset (2026-01-31T12:00:00Z). A later instant than now reads as now. */
                asOf?: string | null;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    put_agent_v1_agents__agent_id__put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ManifestDocument"];
            };
        };
        responses: {
            /** @description Replaced. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    delete_agent_v1_agents__agent_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no body. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    consolidate_v1_agents__agent_id__consolidate_post: {
        parameters: {
            query?: {
                /** @description Only plan: change and keep nothing. */
                dryRun?: boolean;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsolidationRun"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_consolidations_v1_agents__agent_id__consolidations_get: {
        parameters: {
            query?: {
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                /** @description Page size, 1-200 (default 50). */
                limit?: number | null;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsolidationList"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_entities_v1_agents__agent_id__entities_get: {
        parameters: {
            query?: {
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                /** @description Mentions listed an entity, 0-50 (default 5). */
                items?: number | null;
                /** @description Entities a page, 1-100 (default 20). */
                limit?: number | null;
                /** @description The start of an entity's name (any case). */
                query?: string | null;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EntityPage"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    export_agent_v1_agents__agent_id__export_get: {
        parameters: {
            query?: {
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                /** @description Items a page, 1-500. */
                limit?: number | null;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportOut"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    fork_agent_v1_agents__agent_id__fork_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ForkIn"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    search_v1_agents__agent_id__history_get: {
        parameters: {
            query: {
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                fromTime?: string | null;
                /** @description 1-50 (default 10). */
                limit?: number | null;
                query: string;
                sessionId?: string | null;
                toTime?: string | null;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HistorySearchPage"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    import_agent_v1_agents__agent_id__import_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ImportIn"];
            };
        };
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImportOut"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    index_status_v1_agents__agent_id__index_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IndexStatus"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_versions_v1_agents__agent_id__manifest_versions_get: {
        parameters: {
            query?: {
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                /** @description Page size, 1-200 (default 50). */
                limit?: number | null;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManifestVersionList"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_version_v1_agents__agent_id__manifest_versions__version__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                version: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManifestVersion"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_memories_v1_agents__agent_id__memories_get: {
        parameters: {
            query?: {
                /** @description Answer as things stood at this instant, from the versions kept: an ISO 8601 date-time with its offset (2026-01-31T12:00:00Z). A later instant than now reads as now. */
                asOf?: string | null;
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                /** @description Page size, 1-200 (default 50). */
                limit?: number | null;
                pathPrefix?: string | null;
                /** @description Rank by path, description and content (words and meaning) instead of listing by path. */
                query?: string | null;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryList"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_memory_v1_agents__agent_id__memories__path__get: {
        parameters: {
            query?: {
                /** @description Answer as things stood at this instant, from the versions kept: an ISO 8601 date-time with its offset (2026-01-31T12:00:00Z). A later instant than now reads as now. */
                asOf?: string | null;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The memory's path after /memories/, as plain segments (`conventions/release.md`). */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FileMemory"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    put_memory_v1_agents__agent_id__memories__path__put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The memory's path after /memories/, as plain segments (`conventions/release.md`). */
                path: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PutMemoryIn"];
            };
        };
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PutMemoryOut"];
                };
            };
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PutMemoryOut"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Over memoryBytes: nothing was changed. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PutMemoryOut"];
                };
            };
        };
    };
    delete_memory_v1_agents__agent_id__memories__path__delete: {
        parameters: {
            query?: {
                /** @description Needed to delete a folder: every memory in it goes. */
                recursive?: boolean;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The memory's path after /memories/, as plain segments (`conventions/release.md`). */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no body. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_versions_v1_agents__agent_id__memory_versions_get: {
        parameters: {
            query?: {
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                /** @description Page size, 1-200 (default 50). */
                limit?: number | null;
                path?: string | null;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryVersionList"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_version_v1_agents__agent_id__memory_versions__version_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The version's id. */
                version_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FileVersion"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_records_v1_agents__agent_id__records_get: {
        parameters: {
            query?: {
                /** @description Answer as things stood at this instant, from the versions kept: an ISO 8601 date-time with its offset (2026-01-31T12:00:00Z). A later instant than now reads as now. */
                asOf?: string | null;
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                /** @description Comma-separated record ids. */
                ids?: string | null;
                /** @description Comma-separated kinds. */
                kind?: string | null;
                /** @description JSON object of exact values. */
                labels?: string | null;
                /** @description Page size, 1-200 (default 50). */
                limit?: number | null;
                pinned?: boolean | null;
                preview?: "live" | "any" | "only";
                /** @description Rank by this text. */
                query?: string | null;
                scope?: ("session" | "agent") | null;
                sessionId?: string | null;
                /** @description Comma-separated statuses, or all (default ACTIVE). */
                status?: string | null;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecordList"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_record_v1_agents__agent_id__records__record_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The record's id. */
                record_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Record"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    delete_record_v1_agents__agent_id__records__record_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The record's id. */
                record_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Record"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    set_record_expiry_v1_agents__agent_id__records__record_id__patch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The record's id. */
                record_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecordExpiryIn"];
            };
        };
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Record"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    approve_record_v1_agents__agent_id__records__record_id__approve_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The record's id. */
                record_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Record"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    reject_record_v1_agents__agent_id__records__record_id__reject_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The record's id. */
                record_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Record"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    record_versions_v1_agents__agent_id__records__record_id__versions_get: {
        parameters: {
            query?: {
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                /** @description Page size, 1-200 (default 50). */
                limit?: number | null;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The record's id. */
                record_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecordVersionList"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    search_v1_agents__agent_id__search_get: {
        parameters: {
            query: {
                /** @description Answer as things stood at this instant, from the versions kept: an ISO 8601 date-time with its offset (2026-01-31T12:00:00Z). A later instant than now reads as now. */
                asOf?: string | null;
                /** @description 1-50 (default 10). */
                limit?: number | null;
                query: string;
                /** @description Comma-separated: records, memories, history. */
                types?: string | null;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchHits"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_sessions_v1_agents__agent_id__sessions_get: {
        parameters: {
            query?: {
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                /** @description Page size, 1-200 (default 50). */
                limit?: number | null;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionList"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    create_session_v1_agents__agent_id__sessions_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["CreateSessionIn"] | null;
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_session_v1_agents__agent_id__sessions__session_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The session's id. */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    compact_v1_agents__agent_id__sessions__session_id__compact_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The session's id. */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryIndex"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    export_v1_agents__agent_id__sessions__session_id__export_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The session's id. */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": string;
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    page_v1_agents__agent_id__sessions__session_id__history_get: {
        parameters: {
            query?: {
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                fromTurn?: number | null;
                /** @description Page size, 1-200 (default 50). */
                limit?: number | null;
                /** @description Comma-separated roles. */
                role?: string | null;
                toTurn?: number | null;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The session's id. */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HistoryPage"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    memory_index_v1_agents__agent_id__sessions__session_id__memory_index_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The session's id. */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryIndex"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_turns_v1_agents__agent_id__sessions__session_id__turns_get: {
        parameters: {
            query?: {
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                /** @description Page size, 1-200 (default 50). */
                limit?: number | null;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The session's id. */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TurnList"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    begin_turn_v1_agents__agent_id__sessions__session_id__turns_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The session's id. */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["BeginTurnIn"] | null;
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Turn"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_turn_v1_agents__agent_id__sessions__session_id__turns__turn_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The session's id. */
                session_id: string;
                /** @description The turn's id. */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TurnWithWrites"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    commit_turn_v1_agents__agent_id__sessions__session_id__turns__turn_id__commit_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The session's id. */
                session_id: string;
                /** @description The turn's id. */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Turn"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    append_v1_agents__agent_id__sessions__session_id__turns__turn_id__events_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The session's id. */
                session_id: string;
                /** @description The turn's id. */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Events */
                    events: components["schemas"]["EventIn"][];
                };
            };
        };
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppendOut"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    rerun_extraction_v1_agents__agent_id__sessions__session_id__turns__turn_id__extraction_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The session's id. */
                session_id: string;
                /** @description The turn's id. */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Turn"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    instructions_v1_agents__agent_id__sessions__session_id__turns__turn_id__instructions_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The session's id. */
                session_id: string;
                /** @description The turn's id. */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InstructionsOut"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    recall_v1_agents__agent_id__sessions__session_id__turns__turn_id__recall_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The session's id. */
                session_id: string;
                /** @description The turn's id. */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ToolRecallIn"];
            };
        };
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ToolRecallOut"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    rollback_turn_v1_agents__agent_id__sessions__session_id__turns__turn_id__rollback_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The session's id. */
                session_id: string;
                /** @description The turn's id. */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Turn"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    call_tool_v1_agents__agent_id__sessions__session_id__turns__turn_id__tools__name__post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description add_memory, read_memory, delete_memory, search_memory, memory, search_history */
                name: "add_memory" | "read_memory" | "delete_memory" | "search_memory" | "memory" | "search_history";
                /** @description The session's id. */
                session_id: string;
                /** @description The turn's id. */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["add_memory.input"] | components["schemas"]["delete_memory.input"] | components["schemas"]["memory.input"] | components["schemas"]["read_memory.input"] | components["schemas"]["search_history.input"] | components["schemas"]["search_memory.input"];
            };
        };
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        output: components["schemas"]["ToolHistoryOut"] | components["schemas"]["ToolMemoriesOut"] | components["schemas"]["ToolMemoryOut"] | components["schemas"]["ToolRecordsOut"] | components["schemas"]["ToolSourcesOut"];
                    };
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    offered_tools_v1_agents__agent_id__tools_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OfferedTools"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_agent_turns_v1_agents__agent_id__turns_get: {
        parameters: {
            query?: {
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                /** @description Page size, 1-200 (default 50). */
                limit?: number | null;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TurnList"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    begin_agent_turn_v1_agents__agent_id__turns_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["BeginTurnIn"] | null;
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Turn"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_agent_turn_v1_agents__agent_id__turns__turn_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The turn's id. */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TurnWithWrites"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    commit_agent_turn_v1_agents__agent_id__turns__turn_id__commit_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The turn's id. */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Turn"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    append_agent_events_v1_agents__agent_id__turns__turn_id__events_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The turn's id. */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Events */
                    events: components["schemas"]["EventIn"][];
                };
            };
        };
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppendOut"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    agent_turn_instructions_v1_agents__agent_id__turns__turn_id__instructions_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The turn's id. */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InstructionsOut"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    agent_turn_recall_v1_agents__agent_id__turns__turn_id__recall_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The turn's id. */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ToolRecallIn"];
            };
        };
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ToolRecallOut"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    rollback_agent_turn_v1_agents__agent_id__turns__turn_id__rollback_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description The turn's id. */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Turn"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    call_agent_tool_v1_agents__agent_id__turns__turn_id__tools__name__post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
                /** @description add_memory, read_memory, delete_memory, search_memory, memory, search_history */
                name: "add_memory" | "read_memory" | "delete_memory" | "search_memory" | "memory" | "search_history";
                /** @description The turn's id. */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["add_memory.input"] | components["schemas"]["delete_memory.input"] | components["schemas"]["memory.input"] | components["schemas"]["read_memory.input"] | components["schemas"]["search_history.input"] | components["schemas"]["search_memory.input"];
            };
        };
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        output: components["schemas"]["ToolHistoryOut"] | components["schemas"]["ToolMemoriesOut"] | components["schemas"]["ToolMemoryOut"] | components["schemas"]["ToolRecordsOut"] | components["schemas"]["ToolSourcesOut"];
                    };
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    usage_v1_agents__agent_id__usage_get: {
        parameters: {
            query?: {
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                /** @description Page size, 1-200 (default 50). */
                limit?: number | null;
                turnId?: string | null;
            };
            header?: never;
            path: {
                /** @description Path-like agent id, as plain segments. */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsagePage"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_audit_v1_audit_get: {
        parameters: {
            query?: {
                actor?: string | null;
                agentId?: string | null;
                /** @description The `next` of the previous page. */
                cursor?: string | null;
                /** @description Page size, 1-200 (default 50). */
                limit?: number | null;
                since?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditList"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    ingest_v1_ingest_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["IngestIn"];
            };
        };
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IngestOut"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    reset_v1_tenant_delete: {
        parameters: {
            query: {
                /** @description The tenant's name. */
                confirm: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TenantReset"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    reset_agents_v1_tenant_agents_delete: {
        parameters: {
            query: {
                /** @description The tenant's name. */
                confirm: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TenantReset"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_limits_v1_tenant_limits_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TenantLimitsOut"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    put_limits_v1_tenant_limits_put: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TenantLimitsIn"];
            };
        };
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TenantLimitsOut"];
                };
            };
            /** @description Bad input: nothing was changed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No valid token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The token lacks the scope (or the caller role) this call needs. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The agent, session or turn does not exist. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the stored state: nothing was changed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
}
