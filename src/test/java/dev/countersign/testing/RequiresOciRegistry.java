package dev.countersign.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The test needs a real OCI registry on loopback; declare an {@link OciTestRegistry} parameter to
 * get the JVM-wide instance (Debian's {@code docker-registry}). Skipped without it, failing when
 * {@code CI=true}.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag("oci-registry")
@ExtendWith(OciTestRegistryExtension.class)
public @interface RequiresOciRegistry {}
