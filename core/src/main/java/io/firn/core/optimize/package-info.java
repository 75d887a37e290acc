/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
/**
 * The planning front end: from a table to a plan ({@link io.firn.core.optimize.TablePlanner}),
 * shared by the server, the CLI and every local run. It reads the table; the planner it calls
 * ({@code io.firn.core.plan}) stays pure.
 */
package io.firn.core.optimize;
