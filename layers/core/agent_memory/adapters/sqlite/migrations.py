"""Schema migrations, applied in order once each. Never edit a released entry: append a new one."""

MIGRATIONS: list[list[str]] = [
    # 1: agents, manifest versions, sessions, turns
    [
        """CREATE TABLE agents (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            manifest_version INTEGER NOT NULL,
            manifest TEXT NOT NULL,
            forked_from TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (tenant, agent_id)
        ) WITHOUT ROWID""",
        """CREATE TABLE manifest_versions (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            manifest TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (tenant, agent_id, version),
            FOREIGN KEY (tenant, agent_id) REFERENCES agents ON DELETE CASCADE
        ) WITHOUT ROWID""",
        """CREATE TABLE sessions (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            last_sequence INTEGER NOT NULL DEFAULT 0,
            metadata TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL,
            PRIMARY KEY (tenant, agent_id, session_id),
            FOREIGN KEY (tenant, agent_id) REFERENCES agents ON DELETE CASCADE
        ) WITHOUT ROWID""",
        """CREATE TABLE turns (
            tenant TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            turn_id TEXT NOT NULL,
            sequence INTEGER NOT NULL,
            status TEXT NOT NULL,
            preview INTEGER NOT NULL,
            replay_of TEXT,
            started_by TEXT NOT NULL,
            trigger_run_id TEXT,
            manifest_version INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            ended_at TEXT,
            PRIMARY KEY (tenant, agent_id, session_id, turn_id),
            UNIQUE (tenant, agent_id, session_id, sequence),
            FOREIGN KEY (tenant, agent_id, session_id) REFERENCES sessions ON DELETE CASCADE
        ) WITHOUT ROWID""",
    ],
]
