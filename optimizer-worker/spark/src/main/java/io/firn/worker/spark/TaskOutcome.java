/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.spark;

import java.io.Serializable;
import org.jspecify.annotations.Nullable;

/**
 * What one Spark task sends back to the driver: the completion as protocol JSON, or why it failed.
 * Strings only, so no Iceberg object crosses Spark's Java serialization (ARCHITECTURE.md, "Worker
 * protocol").
 *
 * @param complete a {@code CompleteRequest} as JSON; null when the rewrite failed
 * @param failure the exception, for the server's failure report; null when it succeeded
 */
record TaskOutcome(@Nullable String complete, @Nullable String failure) implements Serializable {}
