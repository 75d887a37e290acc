/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
/**
 * The commit contract: what a task produced ({@link io.firn.core.commit.TaskResult}) and how it is
 * committed next to live writers ({@link io.firn.core.commit.Committer}, checked at the swap by
 * {@code CommitGuard}; ARCHITECTURE.md, "Committing next to live writers"). Engine-agnostic, like
 * Iceberg's commit manager in its core's {@code actions} package: the server and every worker
 * runtime use it.
 */
package io.firn.core.commit;
