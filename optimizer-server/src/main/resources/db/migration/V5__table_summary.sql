-- table size, records, snapshots and manifests
ALTER TABLE table_runtime ADD COLUMN total_bytes BIGINT DEFAULT 0 NOT NULL;
ALTER TABLE table_runtime ADD COLUMN data_bytes BIGINT DEFAULT 0 NOT NULL;
ALTER TABLE table_runtime ADD COLUMN record_count BIGINT DEFAULT 0 NOT NULL;
ALTER TABLE table_runtime ADD COLUMN snapshot_count INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE table_runtime ADD COLUMN manifest_count INTEGER DEFAULT 0 NOT NULL;
