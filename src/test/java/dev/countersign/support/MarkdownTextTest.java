package dev.countersign.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MarkdownTextTest {

  @ParameterizedTest(name = "{0}")
  @DisplayName("each construct that would render as markup is written as text")
  @CsvSource(
      delimiter = '\t',
      quoteCharacter = '\u0000',
      textBlock =
          """
          heading tag	<h1>passed</h1>	&lt;h1&gt;passed&lt;/h1&gt;
          image tag	<img src="https://x.example/t.png">	&lt;img src=&quot;https\\://x.example/t.png&quot;&gt;
          anchor tag	<a href="https://evil.example">click</a>	&lt;a href=&quot;https\\://evil.example&quot;&gt;click&lt;/a&gt;
          comment opener	a<!--b	a&lt;\\!--b
          entity	&amp; &#60;	&amp;amp; &amp;\\#60;
          link	[Approve here](https:evil.example)	\\[Approve here\\]\\(https:evil.example\\)
          image	![x](y.png)	\\!\\[x\\]\\(y.png\\)
          emphasis	*bold* _it_ **strong** __strong__	\\*bold\\* \\_it\\_ \\*\\*strong\\*\\* \\_\\_strong\\_\\_
          strikethrough	~~gone~~	\\~\\~gone\\~\\~
          code span	``a``	\\`\\`a\\`\\`
          pipe	a|b	a\\|b
          backslash before pipe	a\\|b	a\\\\\\|b
          backslash before star	a\\*b*	a\\\\\\*b\\*
          heading marker	# Passed	\\# Passed
          math	$\\Huge{ok}$	\\$\\\\Huge{ok}\\$
          mention	@octocat	\\@octocat
          scheme autolink	https://evil.example	https\\://evil.example
          www autolink	WWW.evil.example	WWW\\.evil.example
          """)
  void cell_markup_isEscaped(String construct, String text, String expected) {
    assertThat(MarkdownText.cell(text)).isEqualTo(expected);
  }

  @Test
  void cell_lineBreaks_becomeBrAndNothingElseSpansLines() {
    assertThat(MarkdownText.cell("a\nb\r\nc\rd")).isEqualTo("a<br>b<br>c<br>d");
  }

  @Test
  void cell_ordinaryNames_areUnchanged() {
    assertThat(MarkdownText.cell("deploy/signed/app-config.v2.yaml"))
        .isEqualTo("deploy/signed/app-config.v2.yaml");
    assertThat(MarkdownText.cell("ConfigMap/shop/app-config"))
        .isEqualTo("ConfigMap/shop/app-config");
    assertThat(MarkdownText.cell("sha256:0a1b")).isEqualTo("sha256:0a1b");
  }

  @Test
  void cell_ordinaryMessage_keepsItsWordsAndGainsOnlyEscapes() {
    assertThat(MarkdownText.cell("data.greeting: signed \"hello\", found \"hacked\" (rule)"))
        .isEqualTo("data.greeting: signed &quot;hello&quot;, found &quot;hacked&quot; \\(rule\\)");
  }

  @Test
  void code_wrapsTheEscapedTextInACodeElement_soNoBacktickRunCanEndIt() {
    assertThat(MarkdownText.code("signed/a``<!--b.yaml"))
        .isEqualTo("<code>signed/a\\`\\`&lt;\\!--b.yaml</code>");
  }
}
