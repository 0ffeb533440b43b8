package dev.countersign.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The test needs the loopback Sigstore stack; declare a {@link SigstoreTestStack} parameter
 * (constructor, lifecycle or test method) to get the JVM-wide instance. Without an installed stack
 * the test is skipped, or fails when {@code CI=true}. Install it with {@code
 * .ci/install-test-stack}.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag("sigstore-stack")
@ExtendWith(SigstoreTestStackExtension.class)
public @interface RequiresSigstoreStack {}
