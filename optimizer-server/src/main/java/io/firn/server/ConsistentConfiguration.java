/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;

/**
 * Checks what single fields cannot ({@link FirnServerConfiguration#problems()}): each problem is
 * one violation naming the YAML key, so {@code firn server check} and a starting server refuse the
 * same files with the same words, before anything starts.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = ConsistentConfiguration.Check.class)
public @interface ConsistentConfiguration {
  String message() default "the configuration is inconsistent";

  Class<?>[] groups() default {};

  Class<? extends Payload>[] payload() default {};

  /** Turns each problem into a violation; messages are escaped, never interpolated. */
  final class Check
      implements ConstraintValidator<ConsistentConfiguration, FirnServerConfiguration> {
    @Override
    public boolean isValid(
        FirnServerConfiguration configuration, ConstraintValidatorContext context) {
      if (configuration == null) {
        return true;
      }
      List<String> problems = configuration.problems();
      if (problems.isEmpty()) {
        return true;
      }
      context.disableDefaultConstraintViolation();
      for (String problem : problems) {
        context.buildConstraintViolationWithTemplate(escape(problem)).addConstraintViolation();
      }
      return false;
    }

    private static String escape(String text) {
      return text.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}").replace("$", "\\$");
    }
  }
}
