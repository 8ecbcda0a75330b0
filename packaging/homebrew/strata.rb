# A SKETCH of a Homebrew formula for strata-setup and strata-launch. UNTESTED: it has never been run
# through `brew install`, `brew test` or `brew audit` (no Mac was available), and there is no release
# tarball yet, so `url` and `sha256` below are placeholders to fill in at the first release.
# See docs/INSTALL.md.
class Strata < Formula
  desc "Set up and launch the Strata LLM inference engine on Apple Silicon Macs"
  homepage "https://example.invalid/strata" # placeholder: the project's page
  url "https://example.invalid/strata-0.1.0.tar.gz" # placeholder: the release's source tarball
  sha256 "0000000000000000000000000000000000000000000000000000000000000000" # placeholder
  license "Apache-2.0" # placeholder: the project's licence

  depends_on "maven" => :build
  depends_on arch: :arm64
  depends_on :macos
  depends_on "openjdk" # must be 25 or newer (FFM, the class-file version of the jars)

  def install
    # The same build as ./strata build; the tests need a C toolchain and run in CI, not here.
    ENV["JAVA_HOME"] = Language::Java.java_home("25")
    system "mvn", "-B", "-ntp", "-DskipTests", "-Dspotless.check.skip=true", "package"

    dist = "dist/target/strata-#{version}"
    libexec.install Dir["#{dist}/*"]
    man1.install Dir[libexec/"man/man1/*.1"]

    # bin/ scripts find lib/ through symlinks, but not Homebrew's openjdk (it is neither under
    # /usr/lib/jvm nor known to /usr/libexec/java_home): pin JAVA_HOME in small wrappers.
    %w[strata-setup strata-launch].each do |cmd|
      (bin/cmd).write_env_script libexec/"bin"/cmd, Language::Java.java_home_env("25")
    end

    # zsh users source `strata-setup completion zsh` themselves: the script runs through
    # bashcompinit and is not an autoloadable _strata-setup function.
    generate_completions_from_executable(bin/"strata-setup", "completion", shells: [:bash])
    generate_completions_from_executable(bin/"strata-launch", "completion", shells: [:bash])
  end

  test do
    assert_match "strata-setup #{version}", shell_output("#{bin}/strata-setup --version")
    assert_match "strata-launch #{version}", shell_output("#{bin}/strata-launch --version")
    assert_match "did you mean --ctx", shell_output("#{bin}/strata-setup --ctz 8192 2>&1", 2)
    assert_match "\"k4\"", shell_output("#{bin}/strata-setup probe --json --host-file m4-pro-48")
  end
end
