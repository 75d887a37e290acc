-- leader lease of several replicas
-- One row, id 1: who leads under which epoch until when (ADR 0021; ha/LeaderLease owns it).
CREATE TABLE firn_leader (
  id INTEGER NOT NULL PRIMARY KEY,
  holder VARCHAR(255),
  epoch BIGINT NOT NULL,
  renewed_at_ms BIGINT NOT NULL,
  expires_at_ms BIGINT NOT NULL,
  advertised_url VARCHAR(1024));
INSERT INTO firn_leader (id, holder, epoch, renewed_at_ms, expires_at_ms, advertised_url)
  VALUES (1, NULL, 0, 0, 0, NULL);
