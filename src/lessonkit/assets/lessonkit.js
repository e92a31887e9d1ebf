/* lessonkit: progressive enhancement for glossary terms, quizzes and explorers. */
