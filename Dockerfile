# countersign container image: the runtime the GitHub Action runs.
#
# Build stage: Maven on a JDK 17 image builds target/countersign.jar + target/lib, then
# .ci/build-runtime.sh makes a jlinked JRE (only the modules jdeps finds), unsigns the signed
# third-party jars and writes an AppCDS archive from a training run. Runtime stage: a slim base
# with that JRE and the jar. Sizes and start times: docs/performance.md.
#
# GitHub Actions rules for Docker actions: no USER (the runner mounts the workspace owned by
# its own user and expects root in the container) and no WORKDIR (the runner sets the working
# directory to GITHUB_WORKSPACE). Releases publish this image and action.yml refers to it by
# digest (docker://ghcr.io/...@sha256:...), so jobs pull it instead of rebuilding it.
#
# Base images are build arguments so the image can be built where Docker Hub is unreachable:
# .ci/build-image makes equivalents from Debian packages and passes them (see README,
# "Container test"). BUILD_IMAGE needs Maven and a full JDK (jlink, jmods); its JDK is the
# image's runtime JDK, since .ci/build-runtime.sh jlinks the JRE from it (the code targets 17).
# RUNTIME_IMAGE needs glibc and zlib only.
ARG BUILD_IMAGE=maven:3.9-eclipse-temurin-17
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${BUILD_IMAGE} AS build
# Dependencies first, so that source edits do not invalidate the downloaded-dependency layer.
# Not dependency:go-offline: it also resolves optional transitive dependencies, and
# github-api's optional bridge-method-annotation is not on Maven Central (MDEP-690).
COPY pom.xml /src/pom.xml
RUN mvn -B -q -f /src/pom.xml dependency:resolve dependency:resolve-plugins
COPY src /src/src
# Only what the build reads from .ci/: editing the CI scripts must not rebuild the image.
COPY .ci/build-runtime.sh .ci/appcds-keyless.classlist /src/.ci/
COPY docs/example /src/docs/example
# The archive records absolute paths: build the runtime where the final stage will have it.
RUN mvn -B -q -f /src/pom.xml -DskipTests package \
 && bash /src/.ci/build-runtime.sh /opt/countersign

# glibc (the jlinked JRE is a glibc build) and zlib; the JRE brings its own CA certificates.
FROM ${RUNTIME_IMAGE}
# Java 17 takes the encoding of file names from the locale; without one it is ASCII and a
# manifest named café.yaml cannot even be opened. C.UTF-8 is built into glibc (no locale
# package). LC_ALL too: it wins over a LANG the job may pass (a self-hosted runner's .env often
# says en_US.UTF-8, which this image does not have, and glibc would fall back to ASCII).
ENV LANG=C.UTF-8 LC_ALL=C.UTF-8
COPY --from=build /opt/countersign /opt/countersign
# Fail the build if the AppCDS archive cannot be used in this image (-Xshare:on is strict).
RUN ["/opt/countersign/jre/bin/java", "-Xshare:on", "-XX:SharedArchiveFile=/opt/countersign/app/countersign.jsa", \
     "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", "/opt/countersign/app/countersign.jar", "--version"]
# The flags are those of /opt/countersign/jvm.options (written by .ci/build-runtime.sh).
ENTRYPOINT ["/opt/countersign/jre/bin/java", \
            "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", \
            "-Xms64m", "-Xmn16m", "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=20", "-XX:MaxRAMPercentage=25", \
            "-XX:SharedArchiveFile=/opt/countersign/app/countersign.jsa", "-Xshare:auto", \
            "-XX:+UnlockDiagnosticVMOptions", "-XX:ArchiveRelocationMode=0", \
            "-jar", "/opt/countersign/app/countersign.jar"]
