/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link ContractCheck}'s number checks compare as longs or doubles when they can: checked, on
 * seeded random bounds and values, against comparing the values' decimal texts, which is what the
 * checks mean.
 */
class ContractCheckTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * A bound check without its number, or a regex check without its pattern, is refused when it is
   * made, not with a NullPointerException at the first event it checks.
   */
  @Test
  void aCheckWithoutItsBoundOrPatternIsRefusedWhenMade() {
    for (ContractCheck.Kind kind :
        List.of(ContractCheck.Kind.MIN, ContractCheck.Kind.MAX, ContractCheck.Kind.MAX_LENGTH)) {
      assertThatThrownBy(() -> new ContractCheck("c", "x", kind, null, null, null))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("check 'c' (" + kind.key() + ") needs a number");
    }
    assertThatThrownBy(
            () -> new ContractCheck("c", "x", ContractCheck.Kind.REGEX, null, null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("check 'c' (regex) needs a pattern");
    assertThat(
            new ContractCheck("c", "x", ContractCheck.Kind.REQUIRED, null, null, null)
                .violation(JSON.createObjectNode()))
        .isEqualTo("field 'x' is absent or null");
  }

  @Test
  void minAndMaxDecideAsTheDecimalTextsCompare() throws Exception {
    SplittableRandom random = new SplittableRandom(20261203);
    List<String> bounds =
        List.of("0", "-0.0", "0.1", "100", "-7", "1e20", "12345678901234567890", "2.5", "1e-3");
    for (int i = 0; i < 20_000; i++) {
      String bound = bounds.get(random.nextInt(bounds.size()));
      String value = randomNumber(random, bound);
      JsonNode event = JSON.readTree("{\"x\":" + value + "}");
      BigDecimal exact = event.get("x").decimalValue();
      int order = exact.compareTo(new BigDecimal(bound));
      ContractCheck min =
          new ContractCheck("m", "x", ContractCheck.Kind.MIN, new BigDecimal(bound), null, null);
      ContractCheck max =
          new ContractCheck("m", "x", ContractCheck.Kind.MAX, new BigDecimal(bound), null, null);
      assertThat(min.violation(event) != null).as("%s min %s", value, bound).isEqualTo(order < 0);
      assertThat(max.violation(event) != null).as("%s max %s", value, bound).isEqualTo(order > 0);
    }
  }

  @Test
  void aBrokenCheckNamesTheValueAndAHoldingOneNothing() throws Exception {
    JsonNode event = JSON.readTree("{\"amount\":-1.5,\"city\":\"Zürich\",\"n\":\"x\"}");
    assertThat(
            new ContractCheck(
                    "not_negative", "amount", ContractCheck.Kind.MIN, BigDecimal.ZERO, null, null)
                .violation(event))
        .isEqualTo("field 'amount' = -1.5 is below min 0");
    assertThat(
            new ContractCheck(
                    "short",
                    "city",
                    ContractCheck.Kind.MAX_LENGTH,
                    BigDecimal.valueOf(6),
                    null,
                    null)
                .violation(event))
        .isNull();
    assertThat(
            new ContractCheck(
                    "short",
                    "city",
                    ContractCheck.Kind.MAX_LENGTH,
                    BigDecimal.valueOf(5),
                    null,
                    null)
                .violation(event))
        .isEqualTo("field 'city' is 6 characters long, above max-length 5");
    assertThat(
            new ContractCheck("num", "n", ContractCheck.Kind.MAX, BigDecimal.ONE, null, null)
                .violation(event))
        .isEqualTo("field 'n' = \"x\" is not a number");
  }

  /** Near the bound, far from it, integral, fractional, huge, signed zeros. */
  private static String randomNumber(SplittableRandom random, String bound) {
    BigDecimal b = new BigDecimal(bound);
    return switch (random.nextInt(7)) {
      case 0 -> Long.toString(random.nextLong(-1000, 1000));
      case 1 -> Double.toString(random.nextDouble(-200, 200));
      case 2 -> b.toPlainString();
      case 3 -> Double.toString(b.doubleValue());
      case 4 -> Double.toString(Math.nextUp(b.doubleValue()));
      case 5 -> b.add(BigDecimal.valueOf(random.nextInt(-2, 3))).toPlainString();
      default -> random.nextBoolean() ? "-0.0" : "99999999999999999999999";
    };
  }
}
