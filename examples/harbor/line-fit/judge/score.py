from fit import grade_on


def grade(artifact):
    return grade_on("train.csv", artifact)
